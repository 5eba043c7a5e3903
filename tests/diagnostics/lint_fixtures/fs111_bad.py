import os

import torch.distributed as dist
from torch.utils.data import DistributedSampler

local_rank = int(os.environ["LOCAL_RANK"])
dist.init_process_group("nccl", rank=local_rank, world_size=int(os.environ["WORLD_SIZE"]))


def sampler(dataset, args):
    return DistributedSampler(dataset, num_replicas=dist.get_world_size(), rank=args.local_rank)


def nodes_sampler(dataset, args):
    # every node's GPUs: a global world, so the local rank repeats on each node
    world = len(args.gpus) * args.nodes
    return DistributedSampler(dataset, num_replicas=world, rank=args.local_rank)
