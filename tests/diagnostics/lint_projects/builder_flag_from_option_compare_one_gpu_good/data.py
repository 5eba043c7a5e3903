"""A loader builder that shards only when told the run is distributed."""

from torch.utils.data import DataLoader, DistributedSampler


def get_loader(dataset, batch_size, distributed=False):
    if distributed:
        sampler = DistributedSampler(dataset, shuffle=True)
        return DataLoader(dataset, batch_size=batch_size, sampler=sampler)
    return DataLoader(dataset, batch_size=batch_size, shuffle=True)
