"""WORLD_SIZE is set to 1, then the script spawns two ranks with their own world size."""

import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, random_split

os.environ["MASTER_ADDR"] = "localhost"
os.environ["MASTER_PORT"] = "29500"
os.environ["WORLD_SIZE"] = "1"


def main(rank, dataset, model):
    dist.init_process_group("gloo", rank=rank, world_size=2)
    train, val = random_split(dataset, [0.9, 0.1])  # expect: FS110
    for batch in DataLoader(train, batch_size=8, shuffle=True):  # expect: FS103
        model(batch)


if __name__ == "__main__":
    mp.spawn(main, args=(torch.randn(100, 4), torch.nn.Linear(4, 1)), nprocs=2)
