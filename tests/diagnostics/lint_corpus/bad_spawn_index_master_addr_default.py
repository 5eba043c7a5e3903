# The same launcher with a MASTER_ADDR default a multi-node launch overrides: on two
# nodes the spawn index is a local rank, and both nodes read the same shares.
import os

import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler


def train(local_rank, args, dataset):
    dist.init_process_group(  # expect: FS111
        backend="nccl", world_size=args.world_size, rank=local_rank
    )
    sampler = DistributedSampler(  # expect: FS111
        dataset, shuffle=True, num_replicas=args.world_size, rank=local_rank
    )
    loader = DataLoader(dataset, sampler=sampler)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            pass


def main(args, dataset):
    os.environ.setdefault("MASTER_ADDR", "localhost")
    mp.spawn(train, nprocs=args.gpus_per_node, args=(args, dataset))
