"""The loaders shard only where a process group already exists when they are built."""

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def create_dataloaders(train_set, batch_size):
    sampler = None
    if dist.is_available() and dist.is_initialized():
        sampler = DistributedSampler(train_set, shuffle=True)
    loader = DataLoader(train_set, batch_size=batch_size, sampler=sampler, shuffle=sampler is None)
    return loader, sampler
