import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

from .samplers import OrderedDistributedSampler, TruncatedSampler


def create_loader(dataset, batch_size, is_training=False):
    world, rank = dist.get_world_size(), dist.get_rank()
    if is_training:
        sampler = DistributedSampler(dataset)
    else:
        sampler = OrderedDistributedSampler(dataset, world, rank)  # expect: FS109
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)


def create_exact_eval_loader(dataset, batch_size):
    sampler = TruncatedSampler(dataset, dist.get_world_size(), dist.get_rank())
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)
