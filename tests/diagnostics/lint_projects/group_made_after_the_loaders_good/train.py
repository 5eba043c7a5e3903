"""The script builds its loaders before it starts the process group: they never shard."""

import torch
import torch.distributed as dist
from data import create_dataloaders


def main(train_set, model, optimizer, epochs):
    train_loader, _ = create_dataloaders(train_set, 8)
    dist.init_process_group("nccl")
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()


if __name__ == "__main__":
    main(None, None, None, 10)
