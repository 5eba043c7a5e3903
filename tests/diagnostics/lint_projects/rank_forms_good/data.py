# Helpers build a distributed sampler only for a distributed rank; every comparison form.
from torch.utils.data import DataLoader, DistributedSampler


def loader_ne(dataset, rank=-1):
    sampler = DistributedSampler(dataset, shuffle=False) if rank != -1 else None
    return DataLoader(dataset, batch_size=8, sampler=sampler)


def loader_reversed(dataset, local_rank=-1):
    sampler = None
    if -1 != local_rank:  # noqa: SIM300 (the reversed form on purpose)
        sampler = DistributedSampler(dataset, shuffle=False)
    return DataLoader(dataset, batch_size=8, sampler=sampler)


def loader_not_in(dataset, rank=-1):
    if rank not in (-1, 0):
        return DataLoader(dataset, sampler=DistributedSampler(dataset, shuffle=False))
    return DataLoader(dataset, batch_size=8)


def loader_in_else(dataset, rank=-1):
    if rank in [-1, 0]:
        return DataLoader(dataset, batch_size=8)
    else:
        return DataLoader(dataset, sampler=DistributedSampler(dataset, shuffle=False))


def loader_negated(dataset, rank=None):
    if not rank is None:  # noqa: E714
        return DataLoader(dataset, sampler=DistributedSampler(dataset, shuffle=False))
    return DataLoader(dataset, batch_size=8)


def loader_flag(dataset, distributed=False):
    if not distributed:
        return DataLoader(dataset, batch_size=8)
    return DataLoader(dataset, sampler=DistributedSampler(dataset, shuffle=False))
