"""Imports src.trainer.trainer: src/ holds only folders, and its trainer package lacks it."""

import torch.distributed as dist
from src.trainer.trainer import Net
from torch.utils.data import DataLoader, DistributedSampler


def main(train_set, val_set, epochs):
    dist.init_process_group("nccl")
    model = Net()
    sampler = DistributedSampler(train_set)
    for _ in range(epochs):
        for batch in DataLoader(train_set, sampler=sampler):
            model(batch)
