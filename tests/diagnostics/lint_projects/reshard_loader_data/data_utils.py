"""Loaders; the distributed trainer shards only the validation data again."""

from torch.utils.data import DataLoader


def get_dataloaders(train_dataset, val_dataset, batch_size):
    train_loader = DataLoader(train_dataset, batch_size=batch_size, shuffle=True)  # expect: FS103
    val_loader = DataLoader(val_dataset, batch_size=batch_size, shuffle=False)
    return {"train": train_loader, "val": val_loader}
