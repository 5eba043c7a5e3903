"""Trains on every GPU the launcher starts, after seeding Python's generator alike on
every rank: each rank's dataset holds the tiles in one order."""

import random

import torch
import torch.distributed as dist
from dataset import get_loader

if __name__ == "__main__":
    random.seed(0)
    dist.init_process_group("nccl")
    loader, sampler = get_loader({i: torch.randn(4) for i in range(100)}, 8, True)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        for batch in loader:
            print(batch.shape)
