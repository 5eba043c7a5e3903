# The same tree, and the trainer's evaluate method all-reduces the ranks' sums:
# the padded samples count twice in the reported loss.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def create_dataloaders(train_set, val_set, batch_size):
    if dist.is_initialized():
        train_sampler = DistributedSampler(train_set, shuffle=True)
        val_sampler = DistributedSampler(val_set, shuffle=False)  # expect: FS109
    else:
        train_sampler = None
        val_sampler = None
    return (
        DataLoader(train_set, batch_size, shuffle=train_sampler is None, sampler=train_sampler),
        DataLoader(val_set, batch_size, shuffle=False, sampler=val_sampler),
    )
