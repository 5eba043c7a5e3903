# The same multi-task loaders in a dict, each sampler given the epoch before its pass.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(rank, world_size, tasks, epochs, step):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    loaders = {}
    for name, dataset in tasks.items():
        sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True)
        loaders[name] = DataLoader(dataset, batch_size=8, sampler=sampler)
    for epoch in range(epochs):
        for name, loader in loaders.items():
            loader.sampler.set_epoch(epoch)
            for batch in loader:
                step(name, batch)
