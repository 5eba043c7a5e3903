# main() runs only when the script is not distributed: its shuffling loader is read by one
# process; main_distributed shards its own.
import argparse

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main_distributed(args, dataset, model):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for batch in DataLoader(dataset, sampler=sampler):
            model(batch)


def main(args, dataset, model):
    for _ in range(args.epochs):
        for batch in DataLoader(dataset, shuffle=True):
            model(batch)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--distributed", action="store_true")
    args = parser.parse_args()
    if args.distributed:
        main_distributed(args, None, None)
    else:
        main(args, None, None)
