"""Hands the handler the global rank (dist.get_rank()) under its local_rank parameter."""

import torch.distributed as dist
from data.handler import DataHandler


class Trainer:
    def __init__(self, dataset):
        dist.init_process_group("nccl")
        self.handler = DataHandler(dataset)
        self.loader, self.sampler = self.handler.loader(dist.get_world_size(), dist.get_rank())

    def fit(self, model, epochs):
        for epoch in range(epochs):
            self.sampler.set_epoch(epoch)
            for batch in self.loader:
                model(batch)
