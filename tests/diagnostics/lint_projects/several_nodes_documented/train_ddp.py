"""Passes the local rank as the rank: the README runs it on two nodes, where ranks repeat."""

import os

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(dataset, model, epochs):
    local_rank = int(os.environ["LOCAL_RANK"])
    dist.init_process_group("nccl")
    world = dist.get_world_size()
    sampler = DistributedSampler(dataset, num_replicas=world, rank=local_rank)  # expect: FS111
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in DataLoader(dataset, sampler=sampler):
            model(batch)
