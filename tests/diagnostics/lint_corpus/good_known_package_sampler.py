# Known package samplers where nothing repeats into a metric: padding switched off,
# a training loader, and a class of the same name that the tree defines without padding.
import torch
import torch.distributed as dist
from mmengine.dataset import DefaultSampler
from timm.data import OrderedDistributedSampler
from torch.utils.data import DataLoader, Sampler


class DistributedEvalOrder(Sampler):
    def __init__(self, dataset):
        self.dataset = dataset

    def __iter__(self):
        return iter(range(dist.get_rank(), len(self.dataset), dist.get_world_size()))


def validate(model, val_dataset):
    sampler = DefaultSampler(val_dataset, shuffle=False, round_up=False)
    loader = DataLoader(val_dataset, batch_size=64, sampler=sampler)
    hits = torch.zeros(1)
    for x, y in loader:
        hits += (model(x).argmax(1) == y).sum()
    dist.all_reduce(hits)
    return hits / len(val_dataset)


def train(model, train_dataset, optimizer):
    loader = DataLoader(train_dataset, sampler=OrderedDistributedSampler(train_dataset))
    for x, y in loader:
        model(x).sum().backward()
        optimizer.step()


def evaluate_own_class(model, val_dataset):
    loader = DataLoader(val_dataset, sampler=DistributedEvalOrder(val_dataset))
    hits = sum((model(x).argmax(1) == y).sum() for x, y in loader)
    dist.all_reduce(hits)
    return hits
