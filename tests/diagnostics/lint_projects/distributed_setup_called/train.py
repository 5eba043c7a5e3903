"""The training loop calls its process-group set-up: every process of the run reads the
whole set in its own order."""

import os

import torch
import torch.distributed
from torch.utils.data import DataLoader, Dataset


def setup_parallel(rank: int, world_size: int) -> None:
    torch.distributed.init_process_group("nccl", rank=rank, world_size=world_size)


def make_loader(dataset: Dataset, batch_size: int) -> DataLoader:
    return DataLoader(dataset, batch_size, True)  # expect: FS103


def main() -> None:
    setup_parallel(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]))
    model = torch.nn.Linear(4, 2)
    for _ in range(10):
        for batch in make_loader(torch.randn(100, 4), 8):
            model(batch).sum().backward()


if __name__ == "__main__":
    main()
