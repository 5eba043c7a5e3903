"""A training script builds its imported model and iterates a distributed sampler's
loader every epoch without set_epoch: each epoch repeats the same order."""

import torch
import torch.distributed as dist
from model import MDDAFormer
from torch.utils.data import DataLoader, DistributedSampler

dist.init_process_group("nccl")
train_set = torch.randn(100, 4)
sampler = DistributedSampler(train_set)
loader = DataLoader(train_set, batch_size=8, sampler=sampler)
model = MDDAFormer()
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(10):  # expect: FS101
    for batch in loader:
        optimizer.zero_grad()
        model(batch).sum().backward()
        optimizer.step()
