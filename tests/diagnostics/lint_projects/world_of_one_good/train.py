"""WORLD_SIZE is forced to 1 before the process group forms: every run is one process."""

import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, random_split

os.environ["MASTER_ADDR"] = "localhost"
os.environ["MASTER_PORT"] = "29500"
os.environ["WORLD_SIZE"] = "1"


def main(dataset, model):
    dist.init_process_group("gloo", init_method="env://", rank=int(os.environ.get("RANK", 0)))
    train, val = random_split(dataset, [0.9, 0.1])
    for batch in DataLoader(train, batch_size=8, shuffle=True):
        model(batch)


if __name__ == "__main__":
    main(torch.randn(100, 4), torch.nn.Linear(4, 1))
