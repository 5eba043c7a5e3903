# A multi-task script keeps one shuffling DistributedSampler loader per task in a dict
# and reads them back in its epoch loop (the container's items, each iterated):
# no loader's sampler is given the epoch, so every epoch repeats each task's order.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(rank, world_size, tasks, epochs, step):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    loaders = {}
    for name, dataset in tasks.items():
        sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True)
        loaders[name] = DataLoader(dataset, batch_size=8, sampler=sampler)
    for epoch in range(epochs):  # expect: FS101
        for name, loader in loaders.items():
            for batch in loader:
                step(name, batch)
