# mp.spawn on this machine: the script pins the rendezvous to localhost, so the spawn
# index is the global rank and the world is this machine's processes.
import os

import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler


def train(gpu, args, dataset):
    dist.init_process_group(backend="nccl", world_size=args.world_size, rank=gpu)
    sampler = DistributedSampler(dataset, shuffle=True, num_replicas=args.world_size, rank=gpu)
    loader = DataLoader(dataset, sampler=sampler)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            pass


def main(args, dataset):
    args.world_size = args.gpus
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = "12356"
    mp.spawn(train, nprocs=args.gpus, args=(args, dataset))
