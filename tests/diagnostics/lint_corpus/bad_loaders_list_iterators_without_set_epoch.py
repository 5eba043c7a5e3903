# Loaders appended to a list; each epoch makes an iterator of every loader and draws
# batches from them in turn: no set_epoch, so each epoch repeats every loader's order.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(rank, world_size, parts, epochs, steps, step):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    loaders = []
    for dataset in parts:
        loaders.append(DataLoader(dataset, batch_size=8, sampler=DistributedSampler(dataset)))
    for epoch in range(epochs):  # expect: FS101
        streams = [iter(loader) for loader in loaders]
        for _ in range(steps):
            for stream in streams:
                step(next(stream))
