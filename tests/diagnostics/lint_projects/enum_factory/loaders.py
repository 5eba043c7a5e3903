# A loader factory: the sampler is chosen by an enum.
from enum import Enum

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class SamplerType(Enum):
    DISTRIBUTED = 0
    EPOCH = 1
    INFINITE = 2


class EpochSampler:
    def __init__(self, size, shuffle):
        self.size, self.shuffle = size, shuffle


class InfiniteSampler:
    def __init__(self, size, seed):
        self.size, self.seed = size, seed


def _make_sampler(*, dataset, type, shuffle, seed=0):
    if type == SamplerType.DISTRIBUTED:
        return DistributedSampler(dataset, shuffle=shuffle, drop_last=False)  # expect: FS109
    elif type == SamplerType.EPOCH:
        return EpochSampler(len(dataset), shuffle)
    elif type == SamplerType.INFINITE:
        return InfiniteSampler(len(dataset), seed)
    return None


def make_data_loader(*, dataset, batch_size, sampler_type, shuffle=True, seed=0):
    dist.barrier()
    sampler = _make_sampler(dataset=dataset, type=sampler_type, shuffle=shuffle, seed=seed)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)
