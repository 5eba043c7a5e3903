"""Written for torchrun, but every shipped line runs it with plain python: one process."""

import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, random_split


def main(dataset, model):
    if "RANK" in os.environ:
        dist.init_process_group("nccl")
    train, val = random_split(dataset, [0.9, 0.1])
    loader = DataLoader(train, batch_size=32, shuffle=True)
    for batch in loader:
        model(batch)


if __name__ == "__main__":
    main(torch.randn(100, 4), torch.nn.Linear(4, 1))
