"""The older transformers example shape: a distributed sampler only when a launcher
sets --local_rank; the README runs it by plain python, and other scripts import its
processor table only."""

import argparse

import torch
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler

PROCESSORS = {"stance": str.lower, "topic": str.upper}


def get_processor(task):
    return PROCESSORS[task]


def train(args, train_dataset, model, optimizer):
    sampler = (
        RandomSampler(train_dataset) if args.local_rank == -1 else DistributedSampler(train_dataset)
    )
    loader = DataLoader(train_dataset, sampler=sampler, batch_size=8)
    for epoch in range(args.epochs):
        for batch in loader:
            optimizer.zero_grad()
            model(batch).sum().backward()
            optimizer.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    if args.local_rank != -1:
        torch.distributed.init_process_group("nccl")
    model = torch.nn.Linear(4, 1)
    train(args, torch.randn(64, 4), model, torch.optim.SGD(model.parameters(), lr=0.1))
