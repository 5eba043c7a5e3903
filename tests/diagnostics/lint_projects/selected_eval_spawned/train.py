# The evaluation covers the first 500 test rows (datasets' select(range(500))), and
# one launch line gives the spawned world 3 processes: 500 does not split evenly, so
# the padding repeats a row and the gathered loss counts it twice.
import argparse

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler


def worker(rank, world_size, model, train_set, test_set, epochs):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    train_sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank)
    eval_sampler = DistributedSampler(  # expect: FS109
        test_set.select(range(500)), num_replicas=world_size, rank=rank, shuffle=False
    )
    train_loader = DataLoader(train_set, batch_size=8, sampler=train_sampler)
    eval_loader = DataLoader(test_set.select(range(500)), batch_size=8, sampler=eval_sampler)
    for epoch in range(epochs):
        train_sampler.set_epoch(epoch)
        for batch in train_loader:
            model(batch).sum().backward()
        losses = torch.stack([model(batch).mean() for batch in eval_loader])
        gathered = [torch.zeros_like(losses) for _ in range(world_size)]
        dist.all_gather(gathered, losses)
        print(epoch, torch.cat(gathered).mean().item())


def main(model, train_set, test_set):
    parser = argparse.ArgumentParser()
    parser.add_argument("--world_size", type=int, default=torch.cuda.device_count())
    args = parser.parse_args()
    mp.spawn(worker, args=(args.world_size, model, train_set, test_set, 3), nprocs=args.world_size)
