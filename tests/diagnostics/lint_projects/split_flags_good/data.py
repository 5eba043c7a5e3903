# The same builders; every caller trains on every split it builds a sampler for.
from torch.utils.data import DataLoader, DistributedSampler


def create_sampler(datasets, shuffles, world, rank):
    samplers = []
    for dataset, shuffle in zip(datasets, shuffles):
        sampler = DistributedSampler(dataset, world, rank, shuffle=shuffle)
        samplers.append(sampler)
    return samplers


def create_pinned(datasets, drop_lasts):
    # a flag list that is not about training: drop_last for each split
    return [
        DataLoader(d, sampler=DistributedSampler(d, drop_last=flag), batch_size=32)
        for d, flag in zip(datasets, drop_lasts)
    ]
