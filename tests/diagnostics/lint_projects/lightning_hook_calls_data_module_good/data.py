"""Loader builders; the validation loader drops its last partial batch, where the repeats are."""

from torch.utils.data import DataLoader


def get_train_dataloader(train_set):
    return DataLoader(train_set, batch_size=2, shuffle=True, num_workers=4)


def get_val_dataloader(val_set):
    val_loader = DataLoader(val_set, batch_size=4, shuffle=False, drop_last=True)
    return val_loader
