"""Builds the sampler with the spawn index: one machine, so it is the global rank."""

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class Solver:
    def __init__(self, gpu, dataset=None):
        self.gpu = gpu
        world = dist.get_world_size()
        self.sampler = DistributedSampler(dataset, num_replicas=world, rank=self.gpu)
        self.loader = DataLoader(dataset, sampler=self.sampler)

    def fit(self, epochs=1):
        for epoch in range(epochs):
            self.sampler.set_epoch(epoch)
            for _ in self.loader:
                pass
