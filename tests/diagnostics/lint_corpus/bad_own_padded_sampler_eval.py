import math

import torch.distributed as dist
from torch.utils.data import DataLoader, Sampler


class EvenShardSampler(Sampler):
    def __init__(self, dataset):
        self.dataset = dataset
        self.world = dist.get_world_size()
        self.rank = dist.get_rank()
        self.num_samples = math.ceil(len(dataset) / self.world)
        self.total_size = self.num_samples * self.world

    def __iter__(self):
        indices = list(range(len(self.dataset)))
        padding = self.total_size - len(indices)
        indices = indices + (indices * math.ceil(padding / len(indices)))[:padding]
        return iter(indices[self.rank : self.total_size : self.world])


def evaluate(model, val_dataset):
    dist.init_process_group("nccl")
    loader = DataLoader(val_dataset, sampler=EvenShardSampler(val_dataset))  # expect: FS109
    hits = sum((model(x).argmax(1) == y).sum() for x, y in loader)
    dist.all_reduce(hits)
    return hits / len(val_dataset)


def train(model, train_dataset):
    # the same sampler for training: order and repeats do not corrupt a metric
    return DataLoader(train_dataset, sampler=EvenShardSampler(train_dataset))
