# A spawn launcher that picks a free port on this host and builds its rendezvous URL from
# it: every process runs on this machine, so the spawn index is the global rank.
import copy
import socket

import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler


def main(args, dataset):
    dist.init_process_group(
        "nccl", init_method=args.url, rank=args.local_rank, world_size=args.world_size
    )
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, sampler=sampler)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            pass


def process_fn(rank, args, dataset):
    local_args = copy.copy(args)
    local_args.local_rank = rank
    main(local_args, dataset)


def cli_main(args, dataset):
    with socket.socket() as s:
        s.bind(("localhost", 0))
        args.url = "tcp://localhost:" + str(s.getsockname()[1])
    mp.spawn(process_fn, args=(args, dataset), nprocs=args.world_size)
