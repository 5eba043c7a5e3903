# Python's random is seeded alike on every rank before the paths are shuffled and cut:
# the ranks agree on the split. A remainder cut off inside an expression is no split.
import random

import numpy as np
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def loaders(paths, make_dataset, proportion, seed):
    random.seed(seed)
    dist.init_process_group("nccl")
    random.shuffle(paths)
    cut = int(proportion * len(paths))
    train_paths = paths[:cut]
    val_paths = paths[cut:]
    train_set = make_dataset(train_paths)
    return DataLoader(train_set, sampler=DistributedSampler(train_set)), make_dataset(val_paths)


def batches(indices, batch_size):
    np.random.shuffle(indices)
    full, rest = divmod(len(indices), batch_size)
    return [indices[rest:].reshape(full, batch_size), indices[:rest]]
