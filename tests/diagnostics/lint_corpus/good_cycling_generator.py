# Endless generators that are fine: the epoch advances in the generator or in the
# function that hands it the loader, or the data is a stream (good_cycling_unshuffled.py:
# a sampler that does not shuffle), or a wrapper repeats a sampler under a loader whose
# epoch loop sets the epoch.
import torch.distributed as dist
from torch.utils.data import BatchSampler, DataLoader, DistributedSampler, IterableDataset


def sample_epochs(loader, sampler):
    epoch = 0
    while True:
        sampler.set_epoch(epoch)
        for batch in loader:  # noqa: UP028 (the form training scripts use)
            yield batch
        epoch += 1


def sample_data(loader):
    while True:
        yield from loader


class RepeatSampler:
    """Repeats a batch sampler forever (a loader that keeps its workers)."""

    def __init__(self, sampler):
        self.sampler = sampler

    def __iter__(self):
        while True:
            yield from iter(self.sampler)


class Shards(IterableDataset):
    def __iter__(self):
        return iter(range(dist.get_rank(), 1000, dist.get_world_size()))


def train(model, dataset, optimizer, iterations):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=16, sampler=sampler)
    stream = sample_epochs(loader, sampler)
    for _ in range(iterations):
        model(next(stream)).sum().backward()
        optimizer.step()


def train_caller_sets_epoch(model, dataset, optimizer, epochs, steps):
    epoch_sampler = DistributedSampler(dataset)
    epoch_loader = DataLoader(dataset, batch_size=16, sampler=epoch_sampler)
    stream = sample_data(epoch_loader)
    for epoch in range(epochs):
        epoch_sampler.set_epoch(epoch)
        for _ in range(steps):
            model(next(stream)).sum().backward()


def train_stream(model, optimizer, iterations):
    stream = sample_data(DataLoader(Shards(), batch_size=16))
    for _ in range(iterations):
        model(next(stream)).sum().backward()


def train_repeated(model, dataset, optimizer, epochs):
    sampler = DistributedSampler(dataset)
    batches = RepeatSampler(BatchSampler(sampler, batch_size=16, drop_last=True))
    loader = DataLoader(dataset, batch_sampler=batches)
    stream = iter(loader)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for _ in range(len(dataset) // 16):
            model(next(stream)).sum().backward()
