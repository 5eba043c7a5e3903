"""Loaders whose distributed sampler sits inside a batch sampler of the project."""

import torch.distributed as dist
from torch.utils.data import BatchSampler, DataLoader, DistributedSampler


class RepeatBatchSampler(BatchSampler):
    """Each batch twice (two views per sample)."""

    def __iter__(self):
        for batch in super().__iter__():
            yield batch + batch


def build_loaders(train_set, test_set, batch_size):
    dist.init_process_group("nccl")
    train_sampler = DistributedSampler(train_set, shuffle=True)  # expect: FS101
    train_loader = DataLoader(
        train_set,
        num_workers=4,
        batch_sampler=RepeatBatchSampler(train_sampler, batch_size, drop_last=True),
    )
    test_loader = DataLoader(test_set, batch_size=batch_size)
    return train_loader, test_loader
