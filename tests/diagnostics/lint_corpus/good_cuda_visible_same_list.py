# The same list of GPUs for every process, set before CUDA starts, and each process picks
# its own GPU in it; "-1" hides every GPU on purpose for a CPU run.
import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def select_device(device, local_rank):
    if device == "cpu":
        os.environ["CUDA_VISIBLE_DEVICES"] = "-1"
        return torch.device("cpu")
    os.environ["CUDA_VISIBLE_DEVICES"] = device
    torch.cuda.set_device(local_rank)
    return torch.device("cuda", local_rank)


def main(dataset, args):
    device = select_device(args.device, args.local_rank)
    dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset)
    return device, DataLoader(dataset, sampler=sampler, batch_size=16), sampler
