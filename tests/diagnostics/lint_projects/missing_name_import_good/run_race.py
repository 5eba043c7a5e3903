"""Stops at its import (ImportError: parse_args is not in helpers.arg_parser)."""

import torch
import torch.distributed as dist
from helpers.arg_parser import parse_args
from torch.utils.data import DataLoader, DistributedSampler


def main():
    args = parse_args()
    dist.init_process_group("gloo")
    data = torch.randn(64, 4)
    loader = DataLoader(data, sampler=DistributedSampler(data), batch_size=8)
    for _epoch in range(args.epochs):
        for batch in loader:
            print(batch)


if __name__ == "__main__":
    main()
