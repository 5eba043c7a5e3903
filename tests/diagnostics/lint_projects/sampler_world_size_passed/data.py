"""A loader builder that shards only when told of several processes."""

from torch.utils.data import DataLoader, DistributedSampler


def make_loader(dataset, batch_size, is_training, world_size=1):
    sampler = None
    if world_size > 1:
        sampler = DistributedSampler(dataset, drop_last=is_training)  # expect: FS109
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, drop_last=is_training)
