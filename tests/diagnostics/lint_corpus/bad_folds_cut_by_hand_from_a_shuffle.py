# Every rank shuffles the case list with Python's unseeded generator and cuts it into folds
# (a fold and the rest): each rank trains and validates on other cases.
import random

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def split_list(cases, rate):
    size = int(len(cases) * rate)
    random.shuffle(cases)  # expect: FS110
    folds = []
    for i in range(int(1 / rate)):
        small = cases[i * size : (i + 1) * size]
        big = [c for c in cases if c not in small]
        folds.append((big, small))
    return folds


def main(model, optimizer, cases, epochs):
    dist.init_process_group("nccl")
    train_cases, val_cases = split_list(cases, 0.2)[0]
    sampler = DistributedSampler(train_cases)
    loader = DataLoader(train_cases, batch_size=4, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x in loader:
            optimizer.zero_grad()
            model(x).mean().backward()
            optimizer.step()
