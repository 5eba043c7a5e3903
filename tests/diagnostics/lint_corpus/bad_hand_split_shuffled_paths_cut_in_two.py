# Python's random is never seeded (numpy's and torch's are): every rank shuffles the paths
# its own way before cutting them into training and validation, so the ranks' training
# sets differ and one rank's validation images are another's training images.
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def loaders(paths, make_dataset, proportion, seed):
    np.random.seed(seed)
    torch.manual_seed(seed)
    dist.init_process_group("nccl")
    random.shuffle(paths)  # expect: FS110
    cut = int(proportion * len(paths))
    train_paths = paths[:cut]
    val_paths = paths[cut:]
    train_set = make_dataset(train_paths)
    return DataLoader(train_set, sampler=DistributedSampler(train_set)), make_dataset(val_paths)
