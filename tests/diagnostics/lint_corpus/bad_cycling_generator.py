# Endless generators over a shuffling distributed loader: each pass of the outer loop
# starts the loader over, and nothing advances the sampler's epoch.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def sample_data(loader):
    while True:  # expect: FS101
        for batch in loader:  # noqa: UP028 (the form training scripts use)
            yield batch


def cycle(iterable):
    while True:  # expect: FS101
        yield from iterable


class Trainer:
    def __init__(self, dataset):
        self.loader = DataLoader(dataset, batch_size=16, sampler=DistributedSampler(dataset))

    def batches(self):
        while True:  # expect: FS101
            for index, batch in enumerate(self.loader):  # noqa: UP028
                yield index, batch


def train(model, dataset, optimizer, iterations):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=16, sampler=sampler)
    stream = sample_data(loader)
    for _ in range(iterations):
        model(next(stream)).sum().backward()
        optimizer.step()


def finetune(model, dataset, optimizer, iterations):
    loader = DataLoader(dataset, batch_size=16, sampler=DistributedSampler(dataset))
    stream = cycle(loader)
    for _ in range(iterations):
        model(next(stream)).sum().backward()
        optimizer.step()
