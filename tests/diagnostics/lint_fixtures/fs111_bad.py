import os

import torch.distributed as dist
from torch.utils.data import DistributedSampler

local_rank = int(os.environ["LOCAL_RANK"])
dist.init_process_group("nccl", rank=local_rank, world_size=int(os.environ["WORLD_SIZE"]))


def sampler(dataset, args):
    return DistributedSampler(dataset, num_replicas=dist.get_world_size(), rank=args.local_rank)
