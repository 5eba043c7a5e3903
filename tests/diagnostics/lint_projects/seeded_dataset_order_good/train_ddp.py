"""Seeds per rank only the GPU generators; the dataset is shuffled alike on every rank."""

import os
import random

import numpy as np
import torch
import torch.distributed as dist
from data import create_dataset
from torch.utils.data import DataLoader, DistributedSampler


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def main(paths, model, epochs):
    rank = int(os.environ["RANK"])
    dist.init_process_group("nccl")
    set_seed(42)
    torch.cuda.manual_seed(42 + rank)
    train_dataset = create_dataset(paths)
    sampler = DistributedSampler(train_dataset)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in DataLoader(train_dataset, sampler=sampler):
            model(batch)
