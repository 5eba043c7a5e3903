"""Loader builders of the data package (no sampler: Lightning puts its own in)."""

from torch.utils.data import DataLoader


def get_train_dataloader(train_set):
    return DataLoader(train_set, batch_size=2, shuffle=True, num_workers=4)


def get_val_dataloader(val_set):
    val_loader = DataLoader(val_set, batch_size=1, shuffle=False, num_workers=0)
    return val_loader
