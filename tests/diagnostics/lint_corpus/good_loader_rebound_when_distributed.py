# The shuffling loader is what a one-process run keeps: under the condition that starts the
# process group, the same name is bound to a loader over a distributed sampler.
import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def data_loader(trainset, args):
    train_loader = DataLoader(trainset, batch_size=args.batch_size, shuffle=True)
    train_sampler = None
    if torch.cuda.device_count() > 1 and args.use_ddp == 1:
        train_sampler = DistributedSampler(trainset)
        train_loader = DataLoader(trainset, sampler=train_sampler, batch_size=args.batch_size)
    return train_loader, train_sampler


def main(trainset, model, args):
    if torch.cuda.device_count() > 1 and args.use_ddp == 1:
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
        dist.init_process_group("nccl")
    loader, sampler = data_loader(trainset, args)
    for epoch in range(args.epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        for batch in loader:
            model(batch)
