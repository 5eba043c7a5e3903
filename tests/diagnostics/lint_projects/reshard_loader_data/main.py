"""Shards the helper's validation data (unshuffled); every rank reads the whole training set."""

import torch.distributed as dist
from data_utils import get_dataloaders
from torch.utils.data import DataLoader, DistributedSampler


def main(train_dataset, val_dataset, model, epochs):
    dist.init_process_group("nccl")
    dataloaders = get_dataloaders(train_dataset, val_dataset, 32)
    val_data = dataloaders["val"].dataset
    val_loader = DataLoader(
        val_data, batch_size=32, sampler=DistributedSampler(val_data, shuffle=False)
    )
    for _ in range(epochs):
        for batch in dataloaders["train"]:
            model(batch)
    return val_loader
