# The older train() alone: it runs, and its loop repeats each rank's order every epoch.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train(model, dataset, epochs):
    sampler = DistributedSampler(dataset, shuffle=True)
    for _ in range(epochs):  # expect: FS101
        for batch in DataLoader(dataset, batch_size=8, sampler=sampler):
            model(batch).sum().backward()


if __name__ == "__main__":
    dist.init_process_group("nccl")
    train(torch.nn.Linear(4, 1), torch.randn(100, 4), 10)
