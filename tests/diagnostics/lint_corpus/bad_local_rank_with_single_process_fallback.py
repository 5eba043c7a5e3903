# torchrun on several nodes: `rank` holds the node-local rank in the distributed
# branch and 0 in the single-process one; the sampler takes it with the global
# world size, so the processes of the same local rank on every node read one share.
import os

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler


def main(args, dataset):
    if args.distributed:
        rank = int(os.environ.get("LOCAL_RANK", 0))
        dist.init_process_group("nccl")
        world_size = dist.get_world_size()
    else:
        rank = 0
        world_size = 1
    sampler = (
        DistributedSampler(dataset, world_size, rank, shuffle=True)  # expect: FS111
        if args.distributed
        else RandomSampler(dataset)
    )
    return DataLoader(dataset, sampler=sampler, batch_size=8)
