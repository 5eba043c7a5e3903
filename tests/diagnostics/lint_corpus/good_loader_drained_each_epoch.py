# Drained into a list inside the epoch loop, after set_epoch: each epoch draws anew.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train(train_set, model, epochs):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(train_set)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        batches = list(DataLoader(train_set, batch_size=32, sampler=sampler))
        for batch in batches:
            model(batch)
