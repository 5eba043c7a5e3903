import torch
from torch.utils.data import DataLoader, DistributedSampler


def build_loaders(dataset, batch_size):
    """Split 80/20 and shard both parts; the distributed scripts call it on every rank."""
    n_train = int(0.8 * len(dataset))
    train_set, val_set = torch.utils.data.random_split(dataset, [n_train, len(dataset) - n_train])
    train_loader = DataLoader(
        train_set, batch_size=batch_size, sampler=DistributedSampler(train_set)
    )
    val_loader = DataLoader(val_set, batch_size=batch_size)
    return train_loader, val_loader
