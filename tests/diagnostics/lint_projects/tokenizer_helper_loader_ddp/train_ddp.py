"""A hand-written DDP loop over the helper's loader: nothing shards it."""

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from dataload import prepare_data


def train_ddp(rank, world_size):
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    train_loader, _ = prepare_data(batch_size=8)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Embedding(50257, 4))
    for batch in train_loader:
        model(batch).sum().backward()


if __name__ == "__main__":
    mp.spawn(train_ddp, args=(torch.cuda.device_count(),), nprocs=torch.cuda.device_count())
