"""Trains on a subset that each rank draws with its own generator: the shares overlap."""

import torch
import torch.distributed as dist
from pipeline import setup_loader

if __name__ == "__main__":
    dist.init_process_group("gloo")
    loader = setup_loader(torch.randn(100, 4), subset_size=50)
    for epoch in range(2):
        loader.sampler.set_epoch(epoch)
        for batch in loader:
            print(batch.shape)
