"""Tests a counting model; the shell escapes the parentheses of its name."""

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(model, test_set):
    dist.init_process_group("gloo")
    sampler = DistributedSampler(test_set, shuffle=False)  # expect: FS109
    total = torch.zeros(1)
    for batch in DataLoader(test_set, batch_size=8, sampler=sampler):
        total += (model(batch) - 1).abs().sum().detach()
    dist.all_reduce(total)
    print(total.item() / len(test_set))
