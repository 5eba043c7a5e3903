"""Loaders by data name; only the "shakespeare" one shards with a distributed sampler."""

from torch.utils.data import DataLoader, DistributedSampler, SequentialSampler


def get_loader(name, dataset, rank, world):
    if name == "shakespeare":
        sampler = DistributedSampler(dataset, num_replicas=world, rank=rank)
        return DataLoader(dataset, sampler=sampler, batch_size=8)
    return DataLoader(dataset, sampler=SequentialSampler(dataset), batch_size=8)
