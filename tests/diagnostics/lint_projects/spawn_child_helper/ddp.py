"""Each rank prunes the data itself, reading the whole set in its own order."""

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from scoring import score_and_prune
from torch.utils.data import DataLoader, DistributedSampler, Subset


def train(rank, world_size, dataset, epochs):
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    dataset = Subset(dataset, score_and_prune(dataset, torch.nn.Linear(4, 1), 128))
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, sampler=sampler, batch_size=32)
    model = torch.nn.Linear(4, 1)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x in loader:
            model(x).sum().backward()


if __name__ == "__main__":
    mp.spawn(train, args=(2, torch.randn(256, 4), 3), nprocs=2)
