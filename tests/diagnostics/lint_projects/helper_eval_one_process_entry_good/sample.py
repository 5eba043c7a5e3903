"""Evaluates a checkpoint: the README runs it on one process, so nothing is padded."""

import torch
import torch.distributed as dist
from data import get_sampler
from torch.utils.data import DataLoader

if __name__ == "__main__":
    dist.init_process_group("gloo")
    val_set = torch.randn(30, 4)
    val_loader = DataLoader(val_set, batch_size=8, sampler=get_sampler(val_set))
    model = torch.nn.Linear(4, 1)
    total = torch.zeros(1)
    for batch in val_loader:
        total += model(batch).sum().detach()
    dist.all_reduce(total)
    print(total.item() / len(val_set))
