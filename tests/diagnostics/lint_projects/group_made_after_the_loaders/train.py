"""The script starts the process group first: the loaders shard, and no epoch is set."""

import torch
import torch.distributed as dist
from data import create_dataloaders


def main(train_set, model, optimizer, epochs):
    dist.init_process_group("nccl")
    train_loader, _ = create_dataloaders(train_set, 8)
    for epoch in range(epochs):  # expect: FS101
        for x, y in train_loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()


if __name__ == "__main__":
    main(None, None, None, 10)
