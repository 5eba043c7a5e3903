# Each loader worker seeds its own generators from the rank (augmentation that differs
# per rank and worker): the seed runs in the worker processes, while the sampler's
# order is drawn in the main process from its own seed, which the workers never touch.
import functools
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def seed_everything_in(worker_id, rank, seed):
    worker_seed = rank + seed + worker_id
    random.seed(worker_seed)
    np.random.seed(worker_seed)
    torch.manual_seed(worker_seed)


def worker_init_fn(worker_id, rank, seed):
    torch.manual_seed(rank + seed)


def loaders(train_set, val_set, seed):
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    train = DataLoader(
        train_set,
        batch_size=16,
        sampler=DistributedSampler(train_set, seed=seed),
        num_workers=4,
        worker_init_fn=functools.partial(seed_everything_in, rank=rank, seed=seed),
    )
    val = DataLoader(
        val_set,
        batch_size=16,
        shuffle=False,
        num_workers=4,
        worker_init_fn=functools.partial(worker_init_fn, rank=rank, seed=seed),
    )
    return train, val
