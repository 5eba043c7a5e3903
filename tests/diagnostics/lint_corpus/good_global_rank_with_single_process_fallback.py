# The distributed branch reads the global rank (RANK); the fallback is 0: the
# sampler gets the global rank with the global world size.
import os

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(args, dataset):
    if args.distributed:
        rank = int(os.environ["RANK"])
        dist.init_process_group("nccl")
        world_size = dist.get_world_size()
    else:
        rank = 0
        world_size = 1
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True)
    return DataLoader(dataset, sampler=sampler, batch_size=8)
