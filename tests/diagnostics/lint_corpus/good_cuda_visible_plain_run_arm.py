# One GPU for a plain run only: each pin sits in an arm that runs where no
# launcher set LOCAL_RANK, RANK or WORLD_SIZE; launched ranks take the other
# arm and pick their own device.
import os

if "LOCAL_RANK" not in os.environ:
    os.environ["CUDA_VISIBLE_DEVICES"] = "0"  # a plain run: one GPU

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def init():
    if os.getenv("RANK") is None:
        os.environ["CUDA_VISIBLE_DEVICES"] = "0"
        return torch.device("cuda")
    if "WORLD_SIZE" in os.environ:
        dist.init_process_group("nccl")
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    else:
        os.environ.setdefault("CUDA_VISIBLE_DEVICES", "0")
    return torch.device("cuda")


def loader(dataset):
    return DataLoader(dataset, sampler=DistributedSampler(dataset, shuffle=False), batch_size=8)
