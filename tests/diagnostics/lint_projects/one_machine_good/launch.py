# One machine, one process per GPU.
import os

import torch.multiprocessing as mp
from ddp_setup import setup
from torch.utils.data import DataLoader


def worker(local_rank, world_size, dataset, epochs):
    sampler = setup(local_rank, world_size, dataset)
    loader = DataLoader(dataset, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            pass


def main(dataset, gpus, epochs):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = "29500"
    mp.spawn(worker, nprocs=gpus, args=(gpus, dataset, epochs))
