# Subclasses of DistributedSampler that give up the padding: drop_last=True
# passed up by the constructor, an __iter__ of their own that shards without
# repeating, a wrapper built with drop_last=True; a padding subclass used only
# for training.
import torch
import torch.distributed as dist
from torch.utils.data import BatchSampler, DataLoader, DistributedSampler


class DroppingSampler(DistributedSampler):
    def __init__(self, dataset, **kwargs):
        super().__init__(dataset, drop_last=True, **kwargs)


class ExactSampler(DistributedSampler):
    def __iter__(self):
        indices = list(range(len(self.dataset)))
        return iter(indices[self.rank :: self.num_replicas])


class StatefulSampler(DistributedSampler):
    def __init__(self, dataset, batch_size, **kwargs):
        super().__init__(dataset=dataset, **kwargs)
        self.batch_size = batch_size


class GroupedBatchSampler(BatchSampler):
    def __init__(self, dataset, batch_size, shuffle, drop_last=False):
        sampler = StatefulSampler(dataset, batch_size, shuffle=shuffle, drop_last=drop_last)
        super().__init__(sampler, batch_size=batch_size, drop_last=drop_last)


def _summed(model, loader):
    totals = torch.zeros(2)
    for x, y in loader:
        totals += torch.tensor([(model(x).argmax(1) == y).sum(), len(y)])
    dist.all_reduce(totals)
    return totals[0] / totals[1]


def validate(model, val_set):
    first = _summed(model, DataLoader(val_set, sampler=DroppingSampler(val_set, shuffle=False)))
    second = _summed(model, DataLoader(val_set, sampler=ExactSampler(val_set, shuffle=False)))
    val_sampler = StatefulSampler(val_set, 8, shuffle=False, drop_last=True)
    third = _summed(model, DataLoader(val_set, sampler=val_sampler))
    val_batches = GroupedBatchSampler(val_set, 8, shuffle=False, drop_last=True)
    fourth = _summed(model, DataLoader(val_set, batch_sampler=val_batches))
    return first, second, third, fourth


def train(model, optimizer, train_set, epochs):
    train_sampler = StatefulSampler(train_set, 8, shuffle=True)
    loader = DataLoader(train_set, batch_size=8, sampler=train_sampler)
    for epoch in range(epochs):
        train_sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            model(x, y).backward()
            optimizer.step()
