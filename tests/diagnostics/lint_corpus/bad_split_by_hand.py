# A split spelled out by hand in a DDP script: each rank draws its own permutation,
# so each keeps a different training subset (and validation leaks across ranks).
import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, Subset


def loaders(dataset, batch_size, val_fraction=0.1):
    dist.init_process_group("gloo")
    n_val = int(len(dataset) * val_fraction)
    perm = np.random.permutation(len(dataset))  # expect: FS110
    train_idx, val_idx = perm[n_val:], perm[:n_val]
    train_set = Subset(dataset, train_idx)
    sampler = DistributedSampler(train_set, shuffle=True)
    return DataLoader(train_set, batch_size, sampler=sampler), Subset(dataset, val_idx)


def holdout(dataset):
    order = torch.randperm(len(dataset))[: len(dataset) // 2]  # expect: FS110
    return Subset(dataset, order)


def by_shuffle(dataset, keep):
    ids = list(range(len(dataset)))
    import random

    random.shuffle(ids)  # expect: FS110
    return Subset(dataset, ids[:keep])


def few_shot(dataset, shots):
    picked = np.random.choice(len(dataset), shots, replace=False)  # expect: FS110
    return Subset(dataset, picked)
