"""A data helper: the training scripts take its loader builder; the split is tried out
only by the module's own __main__ block, in one process."""

import torch
from torch.utils.data import DataLoader, DistributedSampler, random_split


def load_split(dataset):
    size = int(len(dataset) * 0.9)
    return random_split(dataset, [size, len(dataset) - size])


def prepare_loader(dataset, batch_size):
    return DataLoader(dataset, sampler=DistributedSampler(dataset), batch_size=batch_size)


if __name__ == "__main__":
    train, val = load_split(torch.arange(100))
    print(len(train), len(val))
