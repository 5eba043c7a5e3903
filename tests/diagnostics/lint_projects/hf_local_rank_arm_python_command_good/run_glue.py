"""The older transformers examples' shape, run by plain python from predict.py: one process.

``local_rank`` stays -1, so the ``DistributedSampler`` arm is never built and
the trainer's epochs repeat nothing. ``run(args)`` is the script's own
function and the ``Pool`` converts features: neither starts ranks.
"""

import argparse
from multiprocessing import Pool

import torch
from torch.utils.data import DataLoader, RandomSampler
from torch.utils.data.distributed import DistributedSampler
from trainer import Trainer


def convert(item):
    return item * 2


def run(args):
    if args.local_rank != -1:
        torch.distributed.init_process_group("nccl")
    with Pool(4) as pool:
        features = torch.stack(pool.map(convert, list(torch.randn(64, 4))))
    if args.local_rank == -1:
        sampler = RandomSampler(features)
    else:
        torch.distributed.barrier()  # the first rank's features first
        sampler = DistributedSampler(features)
    loader = DataLoader(features, sampler=sampler, batch_size=8)
    Trainer(torch.nn.Linear(4, 1)).train(loader, args.epochs)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--epochs", type=int, default=3)
    run(parser.parse_args())
