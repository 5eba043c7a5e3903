# run() is called on both arms: under torchrun every rank reads the whole dataset.
import argparse

import torch.distributed as dist
from torch.utils.data import DataLoader


def run(args, dataset, model):
    for _ in range(args.epochs):
        for batch in DataLoader(dataset, shuffle=True):  # expect: FS103
            model(batch)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--distributed", action="store_true")
    args = parser.parse_args()
    if args.distributed:
        dist.init_process_group("nccl")
        run(args, None, None)
    else:
        run(args, None, None)
