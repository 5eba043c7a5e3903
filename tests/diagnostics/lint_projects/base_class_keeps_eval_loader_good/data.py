# The same loaders and trainer; each rank reports its own validation accuracy,
# and nothing combines the ranks.
from torch.utils.data import DataLoader, DistributedSampler


def create_data_loaders(train_set, val_set, batch_size, world_size=None, rank=None):
    train_sampler = (
        DistributedSampler(train_set, num_replicas=world_size, rank=rank) if world_size else None
    )
    val_sampler = (
        DistributedSampler(val_set, num_replicas=world_size, rank=rank) if world_size else None
    )
    train_loader = DataLoader(
        train_set, batch_size=batch_size, sampler=train_sampler, shuffle=train_sampler is None
    )
    val_loader = DataLoader(val_set, batch_size=batch_size, sampler=val_sampler, shuffle=False)
    return train_loader, val_loader
