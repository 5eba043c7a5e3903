"""Asks for "shakespeare": its distributed sampler is cycled without set_epoch."""

import torch
import torch.distributed as dist
from data import get_loader


def infinite(loader):
    while True:  # expect: FS101
        yield from loader


def main():
    dist.init_process_group("gloo")
    loader = get_loader("shakespeare", torch.randn(64, 4), dist.get_rank(), dist.get_world_size())
    batches = infinite(loader)
    for _step in range(1000):
        print(next(batches))


if __name__ == "__main__":
    main()
