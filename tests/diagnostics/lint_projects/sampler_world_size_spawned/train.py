"""One process calls the worker with world_size=1; several are spawned with the GPU count.

The literal call alone would say that "world_size > 1" never holds; the spawn hands the
worker on, so the padded validation sampler is built on a multi-GPU machine.
"""

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler


def validate(model, loader):
    total = torch.zeros(2)
    for batch in loader:
        total += torch.stack([model(batch).sum(), torch.tensor(float(len(batch)))])
    dist.all_reduce(total)
    return total[0] / total[1]


def worker(rank, world_size, epochs):
    val_set = torch.randn(30, 3)
    model = torch.nn.Linear(3, 1)
    if world_size > 1:
        dist.init_process_group("nccl", rank=rank, world_size=world_size)
        val_sampler = DistributedSampler(val_set, num_replicas=world_size)  # expect: FS109
    else:
        val_sampler = None
    val_loader = DataLoader(val_set, batch_size=8, sampler=val_sampler)
    for _ in range(epochs):
        print(validate(model, val_loader))


def main():
    gpus = torch.cuda.device_count()
    if gpus > 1:
        mp.spawn(worker, args=(gpus, 3), nprocs=gpus)
    else:
        worker(0, 1, 3)


if __name__ == "__main__":
    main()
