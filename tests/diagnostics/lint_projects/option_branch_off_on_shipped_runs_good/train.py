"""The distributed arm runs only with --isdistributed=1; every shipped line passes 0."""

import argparse

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def evaluate(net, loader):
    total = torch.zeros(2)
    for batch in loader:
        total += torch.stack([net(batch).sum(), torch.tensor(float(len(batch)))])
    if dist.is_initialized():
        dist.all_reduce(total)
    return total[0] / total[1]


def main(args, train_set, val_set, net):
    if args.isdistributed == 1:
        dist.init_process_group("nccl")
        train_loader = DataLoader(train_set, batch_size=4, sampler=DistributedSampler(train_set))
        val_sampler = DistributedSampler(val_set)
        val_loader = DataLoader(val_set, batch_size=4, sampler=val_sampler)
    else:
        train_loader = DataLoader(train_set, batch_size=4, shuffle=True)
        val_loader = DataLoader(val_set, batch_size=4)
    for epoch in range(args.numepochs):
        for batch in train_loader:
            net(batch).sum().backward()
        print(epoch, evaluate(net, val_loader))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--isdistributed", type=int, default=1)
    parser.add_argument("--numepochs", type=int, default=2)
    main(parser.parse_args(), torch.randn(64, 3), torch.randn(30, 3), torch.nn.Linear(3, 1))
