# A per-rank seed for augmentation; the RandomSampler drawing from the global generator
# is in the single-process branch only (DeiT / MAE style main()).
import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler


def main(args, dataset_train):
    seed = args.seed + dist.get_rank()
    torch.manual_seed(seed)
    np.random.seed(seed)
    if args.distributed:
        sampler_train = DistributedSampler(dataset_train, shuffle=True)
    else:
        sampler_train = RandomSampler(dataset_train)
    loader = DataLoader(dataset_train, sampler=sampler_train, batch_size=64)
    for epoch in range(args.epochs):
        if args.distributed:
            sampler_train.set_epoch(epoch)
        for batch in loader:
            pass
