# A debug subset gets a shuffling loader, and then every loader goes through a helper
# that rebuilds it over a DistributedSampler when the world has several ranks: the
# shuffling loader is what a one-process run keeps.
import os

from torch.utils.data import DataLoader, DistributedSampler, Subset


def _wrap_loaders_for_distributed(train_loader, val_loader, batch_size):
    world_size = int(os.getenv("WORLD_SIZE", "1"))
    if world_size <= 1:
        return train_loader, val_loader
    rank = int(os.getenv("RANK", "0"))

    def rebuild(loader, shuffle):
        sampler = DistributedSampler(
            loader.dataset, num_replicas=world_size, rank=rank, shuffle=shuffle
        )
        return DataLoader(loader.dataset, batch_size=batch_size, sampler=sampler)

    return rebuild(train_loader, True), rebuild(val_loader, False)


def build_loaders(train_loader, val_loader, batch_size, debug_percent):
    if 0 < debug_percent < 100:
        n = max(1, int(len(train_loader.dataset) * debug_percent / 100))
        train_loader = DataLoader(
            Subset(train_loader.dataset, range(n)), batch_size=batch_size, shuffle=True
        )
    train_loader, val_loader = _wrap_loaders_for_distributed(train_loader, val_loader, batch_size)
    return train_loader, val_loader
