# The loader builder: the training sampler takes the seed it is given.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def _loader(dataset, batch_size, seed=0):
    sampler = DistributedSampler(dataset, seed=seed)  # expect: FS104
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)


def get_loaders(train_set, batch_size, seed):
    if not dist.is_initialized():
        raise RuntimeError("run under torchrun")
    return _loader(train_set, batch_size, seed=seed)
