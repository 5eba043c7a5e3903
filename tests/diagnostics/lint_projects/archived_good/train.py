"""The training script the README runs: it shards, sets the epoch and validates exactly."""

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

from fairshard import DistributedEvalSampler

if __name__ == "__main__":
    dist.init_process_group("nccl")
    train_set, val_set = torch.randn(100, 4), torch.randn(30, 4)
    sampler = DistributedSampler(train_set)
    model = torch.nn.Linear(4, 1)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        for batch in DataLoader(train_set, batch_size=8, sampler=sampler):
            model(batch).sum().backward()
        total = torch.zeros(1)
        for batch in DataLoader(val_set, batch_size=8, sampler=DistributedEvalSampler(val_set)):
            total += model(batch).sum().detach()
        dist.all_reduce(total)
