"""torchrun --nproc_per_node=2 train_ddp.py: the builder shards, and no sampler gets the epoch."""

import torch
import torch.distributed as dist
from utils import build_dataloader


def main(dataset, model, optimizer, epochs):
    dist.init_process_group("nccl")
    train_loader, _ = build_dataloader(dataset, 8, dist=dist.get_world_size() > 1)
    for epoch in range(epochs):  # expect: FS101
        for step, (x, y) in enumerate(train_loader):
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
