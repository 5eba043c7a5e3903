# The same round-robin over the tasks' loaders, each sampler given the epoch first.
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
    for epoch in range(epochs):
        for loader in loaders.values():
            loader.sampler.set_epoch(epoch)
        for name, batch in RoundRobin(loaders):
            step(name, batch)


def main(tasks, epochs, step):
    mp.spawn(run, args=(2, tasks, epochs, step), nprocs=2)
