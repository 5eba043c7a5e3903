import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler


def build(dataset, args):
    rank = dist.get_rank()
    a = DistributedSampler(dataset, seed=rank)  # FS104
    b = DistributedSampler(dataset, seed=1234 + args.local_rank)  # FS104
    c = DistributedSampler(dataset, None, None, True, int(os.environ["RANK"]))  # FS104
    torch.manual_seed(rank)  # FS104: RandomSampler below draws from the global generator
    d = DataLoader(dataset, sampler=RandomSampler(dataset))
    return a, b, c, d
