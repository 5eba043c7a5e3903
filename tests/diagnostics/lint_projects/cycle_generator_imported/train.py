"""Step-based training drawing batches from an endless iterator of another module."""

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler
from utils.data import Prompts, cycle


class Trainer:
    def __init__(self, model, optimizer, lines, batch_size):
        dist.init_process_group("nccl")
        self.model, self.optimizer = model, optimizer
        dataset = Prompts(lines)
        sampler = DistributedSampler(dataset, shuffle=True, drop_last=True)
        dataloader = DataLoader(dataset, batch_size=batch_size, sampler=sampler)
        self.dataloader = cycle(dataloader)  # expect: FS101

    def train(self, steps):
        for _ in range(steps):
            batch = next(self.dataloader)
            self.optimizer.zero_grad()
            self.model(batch).backward()
            self.optimizer.step()
