"""An endless generator starts its loader over by hand on StopIteration; the training
loop draws steps from it, and the distributed sampler never moves its epoch, so
every pass over the data repeats one order."""

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def inf_iterator(iterable):
    iterator = iterable.__iter__()
    while True:  # expect: FS101
        try:
            yield iterator.__next__()
        except StopIteration:
            iterator = iterable.__iter__()


def train(model, optimizer, train_set, max_iters):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(train_set, shuffle=True)
    batches = inf_iterator(DataLoader(train_set, batch_size=8, sampler=sampler))
    for _ in range(max_iters):
        loss = model(next(batches)).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
