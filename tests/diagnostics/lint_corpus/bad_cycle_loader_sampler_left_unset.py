# The cycling generator sets the epoch only when it is handed the sampler, and
# the builder hands it the loader alone: every pass repeats the first order.
import numpy as np
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def cycle_loader(dataloader, sampler=None):
    while 1:  # expect: FS101
        if sampler is not None:
            sampler.set_epoch(np.random.randint(0, 100000))
        yield from dataloader


def get_dataloaders(train_set, batch_size, distributed=True):
    train_sampler = DistributedSampler(train_set) if distributed else None
    return cycle_loader(
        DataLoader(train_set, batch_size=batch_size, sampler=train_sampler, shuffle=False)
    )


def train(model, optimizer, train_set, steps):
    dist.init_process_group("nccl")
    batches = get_dataloaders(train_set, 32)
    for _ in range(steps):
        optimizer.zero_grad()
        model(next(batches)).backward()
        optimizer.step()
