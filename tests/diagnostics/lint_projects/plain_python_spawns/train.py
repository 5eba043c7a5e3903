"""Run by plain python, but it spawns its own ranks: several processes."""

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, random_split


def main(rank, dataset, model):
    dist.init_process_group("gloo", rank=rank, world_size=2)
    train, val = random_split(dataset, [0.9, 0.1])  # expect: FS110
    loader = DataLoader(train, batch_size=32, shuffle=True)  # expect: FS103
    for batch in loader:
        model(batch)


if __name__ == "__main__":
    mp.spawn(main, args=(torch.randn(100, 4), torch.nn.Linear(4, 1)), nprocs=2)
