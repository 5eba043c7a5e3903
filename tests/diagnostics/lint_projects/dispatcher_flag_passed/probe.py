"""A probe that asks the dispatcher for a sharded loader and never advances its epoch."""

import torch
import torch.distributed as dist
from data import build_loader


def main(epochs):
    dist.init_process_group("nccl")
    loader = build_loader(torch.randn(64, 3), distributed=True)
    model = torch.nn.Linear(3, 1)
    for _ in range(epochs):  # expect: FS101
        for batch in loader:
            model(batch).sum().backward()


if __name__ == "__main__":
    main(10)
