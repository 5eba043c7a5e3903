"""The distributed script calls the helper with a keyword it does not take:
TypeError before any rank reads a batch."""

import argparse

import torch.distributed as dist
from utils import get_data


def main(args):
    dist.init_process_group("gloo")
    loader, sampler = get_data(args, is_distributed=True)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            print(batch)


if __name__ == "__main__":
    main(argparse.Namespace(n=64, batch_size=8, epochs=2))
