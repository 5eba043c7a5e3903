"""The same script with ``ddp = True``: every rank reads the whole dataset."""

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader

ddp = True


def main(dataset, model):
    if ddp:
        dist.init_process_group("nccl")
        model = torch.nn.parallel.DistributedDataParallel(model)
    loader = DataLoader(dataset, batch_size=32, shuffle=True)  # expect: FS103
    for batch in loader:
        model(batch)
