"""The same script, setting the epoch in its distributed arm; the one-GPU arm has no sampler."""

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset
from trainer import dsttrain, train


def main(rank, world_size, epochs):
    is_distributed = world_size > 1
    dataset = TensorDataset(torch.randn(64, 4), torch.randn(64, 1))
    if is_distributed:
        dist.init_process_group("nccl", rank=rank, world_size=world_size)
        sampler_tr = DistributedSampler(dataset, rank=rank, num_replicas=world_size, shuffle=True)
    else:
        sampler_tr = None
    train_loader = DataLoader(dataset, batch_size=8, sampler=sampler_tr, shuffle=sampler_tr is None)
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if is_distributed:
        for epoch in range(epochs):
            sampler_tr.set_epoch(epoch)
            dsttrain(model, optimizer, train_loader, rank)
    else:
        for epoch in range(epochs):
            train(model, optimizer, train_loader)


if __name__ == "__main__":
    world_size = torch.cuda.device_count()
    mp.spawn(main, args=(world_size, 10), nprocs=world_size)
