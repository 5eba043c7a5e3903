# The order is drawn by hand (random.shuffle of the indices, then the dataset indexed
# by them) and the loader gets no sampler: every rank trains on the whole set.
from random import shuffle

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def run(rank, world_size, train_ds, model, epochs):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    order = list(range(len(train_ds)))
    shuffle(order)
    train_ds = train_ds[order]
    sampler = DistributedSampler(train_ds, num_replicas=world_size, rank=rank)
    print(len(sampler))
    loader = DataLoader(train_ds, batch_size=32)  # expect: FS103
    for _ in range(epochs):
        for batch in loader:
            model(batch)
