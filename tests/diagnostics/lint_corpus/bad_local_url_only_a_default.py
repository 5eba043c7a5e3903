# The local URL is only the option's default: a multi-node run passes the master's
# address, and the node-local spawn index is then no global rank.
import argparse

import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler


def worker(local_rank, nprocs, args, dataset):
    dist.init_process_group(  # expect: FS111
        backend="nccl", init_method=args.dist_url, world_size=args.world_size, rank=local_rank
    )
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, sampler=sampler, batch_size=32)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            pass


def main(dataset, nprocs):
    parser = argparse.ArgumentParser()
    parser.add_argument("--dist-url", default="tcp://127.0.0.1")
    parser.add_argument("--world-size", type=int, default=nprocs)
    args = parser.parse_args()
    mp.spawn(worker, nprocs=nprocs, args=(nprocs, args, dataset))
