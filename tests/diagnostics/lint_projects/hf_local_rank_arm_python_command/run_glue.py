"""The older transformers examples' shape, launched on two processes from run_all.py.

``--local_rank`` is set, so the ``DistributedSampler`` arm is built, and the
trainer module's epochs never set its epoch.
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
    sampler = RandomSampler(features) if args.local_rank == -1 else DistributedSampler(features)
    loader = DataLoader(features, sampler=sampler, batch_size=8)
    Trainer(torch.nn.Linear(4, 1)).train(loader, args.epochs)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--epochs", type=int, default=3)
    run(parser.parse_args())
