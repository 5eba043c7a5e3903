# The helper rebuilds the loaders for a bigger batch, with no distributed sampler:
# every rank of the torchrun job reads the whole debug subset in its own order.
import os

import torch.distributed as dist
from torch.utils.data import DataLoader, Subset


def _rebatch(train_loader, val_loader, batch_size):
    def rebuild(loader, shuffle):
        return DataLoader(loader.dataset, batch_size=batch_size, shuffle=shuffle)  # expect: FS103

    return rebuild(train_loader, True), rebuild(val_loader, False)


def build_loaders(train_loader, val_loader, batch_size, debug_percent):
    dist.init_process_group("nccl", rank=int(os.environ["RANK"]))
    if 0 < debug_percent < 100:
        n = max(1, int(len(train_loader.dataset) * debug_percent / 100))
        train_loader = DataLoader(  # expect: FS103
            Subset(train_loader.dataset, range(n)), batch_size=batch_size, shuffle=True
        )
    train_loader, val_loader = _rebatch(train_loader, val_loader, batch_size)
    return train_loader, val_loader
