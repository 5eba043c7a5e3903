# The same hand-drawn order, but the loader takes a DistributedSampler over it:
# each rank reads its own share.
from random import shuffle

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def run(rank, world_size, train_ds, model, epochs):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    order = list(range(len(train_ds)))
    shuffle(order)
    train_ds = train_ds[order]
    sampler = DistributedSampler(train_ds, num_replicas=world_size, rank=rank)
    loader = DataLoader(train_ds, batch_size=32, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            model(batch)
