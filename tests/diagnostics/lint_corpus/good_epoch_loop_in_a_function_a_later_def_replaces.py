# An older train() without set_epoch, replaced further down by a train() that sets it:
# Python binds the name to the second definition, so the first never runs.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train(model, dataset, epochs):
    sampler = DistributedSampler(dataset, shuffle=True)
    for _ in range(epochs):
        for batch in DataLoader(dataset, batch_size=8, sampler=sampler):
            model(batch).sum().backward()


def train(model, dataset, epochs):  # noqa: F811
    sampler = DistributedSampler(dataset, shuffle=True)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in DataLoader(dataset, batch_size=8, sampler=sampler):
            model(batch).sum().backward()


if __name__ == "__main__":
    dist.init_process_group("nccl")
    train(torch.nn.Linear(4, 1), torch.randn(100, 4), 10)
