import random

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def build(dataset, seed):
    rank = dist.get_rank()
    sampler = DistributedSampler(dataset, rank=rank, seed=seed)
    torch.manual_seed(seed + rank)  # per-rank augmentation seed; the sampler has its own
    random.seed(seed)
    return DataLoader(dataset, sampler=sampler)
