# The same helpers; evaluation passes a rank that does reach the distributed sampler.
from torch.utils.data import DataLoader, DistributedSampler


def loader_ne(dataset, rank=-1):
    sampler = DistributedSampler(dataset, shuffle=False) if rank != -1 else None  # expect: FS109
    return DataLoader(dataset, batch_size=8, sampler=sampler)


def loader_not_in(dataset, rank=-1):
    if rank not in (-1, 0):
        sampler = DistributedSampler(dataset, shuffle=False)  # expect: FS109
        return DataLoader(dataset, sampler=sampler)
    return DataLoader(dataset, batch_size=8)
