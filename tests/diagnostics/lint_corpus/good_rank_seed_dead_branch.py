# `if True:  # args.distributed:` -- the RandomSampler branch never runs (MAE's main_pretrain).
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler


def main(args, dataset_train):
    seed = args.seed + dist.get_rank()
    torch.manual_seed(seed)
    if True:  # args.distributed:
        sampler_train = DistributedSampler(dataset_train, shuffle=True)
    else:
        sampler_train = RandomSampler(dataset_train)
    loader = DataLoader(dataset_train, sampler=sampler_train, batch_size=64)
    for epoch in range(args.epochs):
        sampler_train.set_epoch(epoch)
        for batch in loader:
            pass
