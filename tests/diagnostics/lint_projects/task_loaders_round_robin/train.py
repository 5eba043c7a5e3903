# One shuffling DistributedSampler loader per task, kept in a dict and read each epoch
# through a round-robin iterator class of the tree: no sampler is given the epoch.
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler
from utils.round_robin import RoundRobin


def run(rank, world_size, tasks, epochs, step):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    loaders = {}
    for name, dataset in tasks.items():
        sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True)
        loader = DataLoader(dataset, batch_size=8, sampler=sampler)
        loaders[name] = loader
    for epoch in range(epochs):  # expect: FS101
        for name, batch in RoundRobin(loaders):
            step(name, batch)


def main(tasks, epochs, step):
    mp.spawn(run, args=(2, tasks, epochs, step), nprocs=2)
