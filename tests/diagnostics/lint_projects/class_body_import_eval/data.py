"""One builder for every mode; distributed runs get a DistributedSampler (it pads)."""

import torch
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def get_dataloaders(n, batch_size, mode="train", distributed=True):
    dataset = TensorDataset(torch.randn(n, 4))
    sampler = None
    if distributed:
        sampler = DistributedSampler(dataset)  # expect: FS109
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)
