"""A dataset whose constructor orders its tiles with Python's global generator, and the
loader builder the training script calls."""

import random

import torch
from torch.utils.data import DataLoader, Dataset


class Tiles(Dataset):
    def __init__(self, data, shuffle=True):
        self.data = data
        keys = list(data.keys())
        if shuffle:
            self.index = random.sample(keys, len(keys))
        else:
            self.index = sorted(keys)

    def __len__(self):
        return len(self.index)

    def __getitem__(self, i):
        return self.data[self.index[i]]


def get_loader(data, batch_size, distributed):
    train_set = Tiles(data, shuffle=True)
    sampler = None
    if distributed:
        sampler = torch.utils.data.distributed.DistributedSampler(train_set)
    return DataLoader(train_set, batch_size=batch_size, sampler=sampler), sampler
