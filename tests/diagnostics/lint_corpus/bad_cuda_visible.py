import os

# one GPU for every process: rank 1 and up ask set_device for a GPU they cannot see
os.environ["CUDA_VISIBLE_DEVICES"] = "0"  # expect: FS106

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(dataset):
    dist.init_process_group("nccl")
    torch.cuda.set_device(dist.get_rank())
    return DataLoader(dataset, sampler=DistributedSampler(dataset), batch_size=16)
