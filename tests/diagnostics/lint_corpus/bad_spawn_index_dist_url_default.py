# The rendezvous URL is a command-line default that a multi-node run overrides
# (--dist-url tcp://node0:23456): on two nodes the spawn index is a local rank.
import argparse

import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler


def main(local_rank, args, dataset):
    dist.init_process_group(  # expect: FS111
        "nccl", init_method=args.dist_url, rank=local_rank, world_size=args.world_size
    )
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, sampler=sampler)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            pass


def cli_main(dataset):
    parser = argparse.ArgumentParser()
    parser.add_argument("--dist-url", default="tcp://localhost:23456")
    parser.add_argument("--world-size", type=int, default=8)
    parser.add_argument("--gpus-per-node", type=int, default=8)
    args = parser.parse_args()
    mp.spawn(main, args=(args, dataset), nprocs=args.gpus_per_node)
