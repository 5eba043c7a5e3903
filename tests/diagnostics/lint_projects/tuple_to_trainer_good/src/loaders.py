# The builder hands its loaders back in a tuple; the script unpacks them and gives
# the validation loader to a trainer class, whose evaluate method scores each
# rank's own share, and only rank 0 reports it: no repeat reaches a number.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def create_dataloaders(train_set, val_set, batch_size):
    if dist.is_initialized():
        train_sampler = DistributedSampler(train_set, shuffle=True)
        val_sampler = DistributedSampler(val_set, shuffle=False)
    else:
        train_sampler = None
        val_sampler = None
    return (
        DataLoader(train_set, batch_size, shuffle=train_sampler is None, sampler=train_sampler),
        DataLoader(val_set, batch_size, shuffle=False, sampler=val_sampler),
    )
