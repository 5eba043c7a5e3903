"""Loaders for a one-process run; the distributed trainer re-shards their data."""

from torch.utils.data import DataLoader


def get_dataloaders(train_dataset, val_dataset, batch_size):
    train_loader = DataLoader(train_dataset, batch_size=batch_size, shuffle=True)
    val_loader = DataLoader(val_dataset, batch_size=batch_size, shuffle=False)
    return {"train": train_loader, "val": val_loader}
