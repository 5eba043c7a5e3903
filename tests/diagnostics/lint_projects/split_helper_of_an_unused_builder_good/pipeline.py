"""A dataset builder for a training script the tree does not ship: nothing calls it."""

import torch.distributed as dist
from data.subsets import maybe_subset
from torch.utils.data import DataLoader, DistributedSampler


def setup_loader(train_data, subset_size):
    data = maybe_subset(train_data, size=subset_size)
    sampler = DistributedSampler(data, num_replicas=dist.get_world_size(), rank=dist.get_rank())
    return DataLoader(data, batch_size=8, sampler=sampler)
