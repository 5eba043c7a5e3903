"""Takes the helper's training data and, when distributed, shards it with its own sampler."""

import torch.distributed as dist
from data_utils import get_dataloaders
from torch.utils.data import DataLoader, DistributedSampler


def main(train_dataset, val_dataset, model, epochs, distributed):
    dataloaders = get_dataloaders(train_dataset, val_dataset, 32)
    data = dataloaders["train"].dataset
    if distributed:
        dist.init_process_group("nccl")
        sampler = DistributedSampler(data, shuffle=True, seed=0)
        train_loader = DataLoader(data, batch_size=32, sampler=sampler)
    else:
        sampler = None
        train_loader = dataloaders["train"]
    for epoch in range(epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        for batch in train_loader:
            model(batch)
