"""Pretraining on several processes: a sharded loader whose epoch it advances."""

import torch
import torch.distributed as dist
from data import build_loader


def main(epochs):
    dist.init_process_group("nccl")
    loader = build_loader(torch.randn(64, 3), distributed=True)
    model = torch.nn.Linear(3, 1)
    for epoch in range(epochs):
        loader.sampler.set_epoch(epoch)
        for batch in loader:
            model(batch).sum().backward()


if __name__ == "__main__":
    main(10)
