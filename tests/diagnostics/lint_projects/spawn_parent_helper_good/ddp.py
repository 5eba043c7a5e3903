"""Prunes the data in the parent, then spawns the ranks that train on the rest."""

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from scoring import score_and_prune
from torch.utils.data import DataLoader, DistributedSampler, Subset


def train(rank, world_size, dataset, epochs):
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, sampler=sampler, batch_size=32)
    model = torch.nn.Linear(4, 1)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x in loader:
            model(x).sum().backward()


def preprocess(data):
    return Subset(data, score_and_prune(data, torch.nn.Linear(4, 1), 128))


if __name__ == "__main__":
    mp.spawn(train, args=(2, preprocess(torch.randn(256, 4)), 3), nprocs=2)
