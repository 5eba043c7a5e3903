"""Distributed only with --n_gpu above 1, which the shipped launch line passes."""

import argparse

import torch
import torch.distributed as dist
from data import get_loader


def main(args):
    if args.n_gpu > 1:
        dist.init_process_group("nccl")
    loader = get_loader(torch.randn(64, 3), 8, distributed=(args.n_gpu > 1))
    model = torch.nn.Linear(3, 1)
    for _ in range(args.num_epochs):  # expect: FS101
        for batch in loader:
            model(batch).sum().backward()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_gpu", type=int, default=1)
    parser.add_argument("--num_epochs", type=int, default=10)
    main(parser.parse_args())
