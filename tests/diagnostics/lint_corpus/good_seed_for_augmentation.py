import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def build(args, dataset):
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    aug_seed = args.seed + rank  # per-rank augmentation noise is fine
    random.seed(aug_seed)
    np.random.seed(aug_seed)
    torch.manual_seed(aug_seed)
    sampler = DistributedSampler(dataset, seed=args.seed)
    return DataLoader(dataset, sampler=sampler, batch_size=32)
