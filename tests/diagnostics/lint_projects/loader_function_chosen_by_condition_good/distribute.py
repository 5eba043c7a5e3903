import torch
from torch.utils.data import DataLoader, DistributedSampler


def get_distributed_loader(dataset: torch.utils.data.Dataset, batch_size: int) -> DataLoader:
    sampler = DistributedSampler(dataset, shuffle=True)
    return DataLoader(dataset, sampler=sampler, batch_size=batch_size)
