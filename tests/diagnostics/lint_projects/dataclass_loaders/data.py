"""Builds the loaders and hands them back in a dataclass."""

from dataclasses import dataclass

from torch.utils.data import DataLoader, DistributedSampler


@dataclass
class Loaders:
    train_loader: DataLoader
    val_loader: DataLoader


def build_loaders(train_set, val_set, rank, world_size):
    train_sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank)
    val_sampler = DistributedSampler(val_set, world_size, rank, shuffle=False)  # expect: FS109
    return Loaders(
        train_loader=DataLoader(train_set, sampler=train_sampler),
        val_loader=DataLoader(val_set, sampler=val_sampler),
    )
