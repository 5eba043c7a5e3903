"""One loader builder for every split: the caller says whether the sampler drops the tail."""

from torch.utils.data import DataLoader, DistributedSampler


def create_dataloader(dataset, batch_size, shuffle, distributed, drop_last=False):
    sampler = None
    if distributed:
        sampler = DistributedSampler(dataset, shuffle=shuffle, drop_last=drop_last)  # expect: FS109
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler, drop_last=drop_last)
    return loader, sampler
