"""The ``if`` arm only builds a sampler and falls through: the loader ignores it."""

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train_dataloader(dataset, batch_size):
    dist.init_process_group("nccl")
    if dist.is_initialized():
        sampler = DistributedSampler(dataset)
        print(len(sampler))
    return DataLoader(dataset, batch_size=batch_size, shuffle=True)  # expect: FS103
