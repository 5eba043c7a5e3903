"""Trains on the whole set, each rank on its own share."""

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

if __name__ == "__main__":
    dist.init_process_group("gloo")
    data = torch.randn(100, 4)
    sampler = DistributedSampler(data)
    for epoch in range(2):
        sampler.set_epoch(epoch)
        for batch in DataLoader(data, batch_size=8, sampler=sampler):
            print(batch.shape)
