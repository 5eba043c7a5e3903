"""A process-group set-up that nothing calls (left from an experiment) beside the training
loop: the script runs one process, and its shuffled loader reads the set once per epoch."""

import torch
import torch.distributed
from torch.nn.parallel import DistributedDataParallel  # noqa: F401 (never used)
from torch.utils.data import DataLoader, Dataset


def setup_parallel(rank: int, world_size: int) -> None:
    torch.distributed.init_process_group("nccl", rank=rank, world_size=world_size)


def make_loader(dataset: Dataset, batch_size: int) -> DataLoader:
    return DataLoader(dataset, batch_size, True)


def main() -> None:
    model = torch.nn.Linear(4, 2)
    for _ in range(10):
        for batch in make_loader(torch.randn(100, 4), 8):
            model(batch).sum().backward()


if __name__ == "__main__":
    main()
