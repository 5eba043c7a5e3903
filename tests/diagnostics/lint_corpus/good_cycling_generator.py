# Endless generators that are fine: the epoch advances in the generator or in the
# function that hands it the loader, or the data is a stream (good_cycling_unshuffled.py:
# a sampler that does not shuffle).
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, IterableDataset


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
