# Several processes: the builder shards, and no sampler is given the epoch.
import torch.distributed as dist
from data_loaders import get_data_loaders


def main(datasets, epochs, step):
    dist.init_process_group("nccl")
    train_loader, test_loader = get_data_loaders(datasets, 64, is_distributed=True)
    for epoch in range(epochs):  # expect: FS101
        for batch in train_loader:
            step(batch)
