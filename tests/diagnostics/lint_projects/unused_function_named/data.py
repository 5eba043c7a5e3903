"""Loaders of two experiments; only the sequence one is still run."""

import torch.distributed as dist
from torch.utils.data import DataLoader


def sequence_loader(dataset, rank, world):
    return DataLoader(dataset[rank::world], batch_size=8)


def rae_loaders(dataset):
    # left from an older experiment: nothing calls it
    return DataLoader(dataset, batch_size=8, shuffle=True)  # expect: FS103


def world():
    return dist.get_world_size()
