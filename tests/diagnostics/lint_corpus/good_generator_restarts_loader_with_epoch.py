"""An endless generator starts its loader over by hand on StopIteration and moves the
sampler's epoch first: every pass over the data has its own order."""

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def inf_iterator(loader):
    epoch = 0
    iterator = iter(loader)
    while True:
        try:
            yield next(iterator)
        except StopIteration:
            epoch += 1
            loader.sampler.set_epoch(epoch)
            iterator = iter(loader)


def train(model, optimizer, train_set, max_iters):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(train_set, shuffle=True)
    batches = inf_iterator(DataLoader(train_set, batch_size=8, sampler=sampler))
    for _ in range(max_iters):
        loss = model(next(batches)).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
