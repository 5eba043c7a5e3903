# A loader builder with a padded sampler in the else of its training flag.
import torch
from torch.utils.data import DataLoader, DistributedSampler


def create_label_loader(dataset, batch_size, is_training=False, distributed=False):
    sampler = None
    if distributed:
        if is_training:
            sampler = DistributedSampler(dataset)
        else:
            sampler = DistributedSampler(dataset, shuffle=False)  # expect: FS109
    return DataLoader(
        dataset, batch_size=batch_size, sampler=sampler, pin_memory=torch.cuda.is_available()
    )
