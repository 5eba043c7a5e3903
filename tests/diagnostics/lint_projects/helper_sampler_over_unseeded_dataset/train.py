"""Trains on every GPU the launcher starts; nothing seeds Python's generator, so each
rank's dataset holds the tiles in its own order and the shares overlap."""

import torch
import torch.distributed as dist
from dataset import get_loader

if __name__ == "__main__":
    dist.init_process_group("nccl")
    loader, sampler = get_loader({i: torch.randn(4) for i in range(100)}, 8, True)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        for batch in loader:
            print(batch.shape)
