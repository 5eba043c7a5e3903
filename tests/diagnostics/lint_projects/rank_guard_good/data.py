# The helper builds a distributed sampler only when given a rank; evaluation passes rank=-1.
from torch.utils.data import DataLoader, DistributedSampler


def create_dataloader(dataset, batch_size, rank=-1, shuffle=True):
    sampler = None if rank == -1 else DistributedSampler(dataset, shuffle=shuffle)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)
