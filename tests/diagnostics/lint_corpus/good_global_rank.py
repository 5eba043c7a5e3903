import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def build(dataset):
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset, num_replicas=dist.get_world_size(), rank=dist.get_rank())
    return DataLoader(dataset, sampler=sampler, batch_size=32)
