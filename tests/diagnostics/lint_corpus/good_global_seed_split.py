import torch
import torch.distributed as dist
from torch.utils.data import random_split


def split(args, dataset):
    dist.init_process_group("nccl")
    torch.manual_seed(args.seed)  # identical on every rank, so is the split
    return random_split(dataset, [0.9, 0.1])
