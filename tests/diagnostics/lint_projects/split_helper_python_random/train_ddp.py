# torchrun runs this on every rank; the split helper draws with Python's random, which
# torch.manual_seed does not seed: each rank keeps its own training files.
import os

import torch
import torch.distributed as dist
from data.common import random_split_files
from torch.utils.data import DataLoader, DistributedSampler


def main(files, make_dataset, seed, epochs, step):
    dist.init_process_group("nccl")
    torch.manual_seed(seed)
    train_files, val_files = random_split_files(files, 0.3)
    train_set = make_dataset(train_files)
    sampler = DistributedSampler(train_set)
    loader = DataLoader(train_set, batch_size=8, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            step(batch, int(os.environ["LOCAL_RANK"]))
