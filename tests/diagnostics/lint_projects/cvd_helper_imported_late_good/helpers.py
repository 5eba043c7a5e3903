"""Helpers of the training scripts; pins GPU 0 for the one-process scripts."""

import os

os.environ["CUDA_VISIBLE_DEVICES"] = "0"

import torch.distributed as dist
from torch.utils.data import DistributedSampler


def get_dist_info():
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def train_sampler(dataset):
    rank, world = get_dist_info()
    return DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True)
