"""Written for torchrun, but a walkthrough launches it on N GPUs."""

import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, random_split


def main(dataset, model):
    if "RANK" in os.environ:
        dist.init_process_group("nccl")
    train, val = random_split(dataset, [0.9, 0.1])  # expect: FS110
    loader = DataLoader(train, batch_size=32, shuffle=True)  # expect: FS103
    for batch in loader:
        model(batch)


if __name__ == "__main__":
    main(torch.randn(100, 4), torch.nn.Linear(4, 1))
