"""The process group and DDP sit under ``if ddp:`` with ``ddp = False``: one process."""

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader

ddp = False


def main(dataset, model):
    if ddp:
        dist.init_process_group("nccl")
        model = torch.nn.parallel.DistributedDataParallel(model)
    loader = DataLoader(dataset, batch_size=32, shuffle=True)
    for batch in loader:
        model(batch)
