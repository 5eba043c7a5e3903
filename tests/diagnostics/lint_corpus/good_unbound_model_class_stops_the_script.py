"""A training script builds its model from a class its file never imports or defines:
the NameError stops it before the loader is iterated, so no epoch repeats its order."""

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

dist.init_process_group("nccl")
train_set = torch.randn(100, 4)
sampler = DistributedSampler(train_set)
loader = DataLoader(train_set, batch_size=8, sampler=sampler)
model = RCUNet()  # noqa: F821
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(10):
    for batch in loader:
        optimizer.zero_grad()
        model(batch).sum().backward()
        optimizer.step()
