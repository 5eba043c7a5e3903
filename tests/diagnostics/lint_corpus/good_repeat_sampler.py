# An infinite loader that repeats its sampler forever; the training loop calls set_epoch
# on the sampler it wraps (yolov5's InfiniteDataLoader / _RepeatSampler).
import torch
from torch.utils.data import DataLoader, DistributedSampler


class _RepeatSampler:
    def __init__(self, sampler):
        self.sampler = sampler

    def __iter__(self):
        while True:
            yield from iter(self.sampler)


class InfiniteDataLoader(DataLoader):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        object.__setattr__(self, "batch_sampler", _RepeatSampler(self.batch_sampler))
        self.iterator = super().__iter__()

    def __iter__(self):
        for _ in range(len(self)):
            yield next(self.iterator)


def train(dataset, epochs):
    torch.distributed.init_process_group("nccl")
    sampler = DistributedSampler(dataset, shuffle=True)
    train_loader = InfiniteDataLoader(dataset, batch_size=16, sampler=sampler)
    for epoch in range(epochs):
        train_loader.sampler.set_epoch(epoch)
        for batch in train_loader:
            pass
