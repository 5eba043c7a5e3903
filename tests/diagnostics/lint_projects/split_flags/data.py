# One sampler per split; which split is for evaluation is said only by the flag list.
from torch.utils.data import DataLoader, DistributedSampler


def create_sampler(datasets, shuffles, world, rank):
    samplers = []
    for dataset, shuffle in zip(datasets, shuffles):
        sampler = DistributedSampler(dataset, world, rank, shuffle=shuffle)  # expect: FS109
        samplers.append(sampler)
    return samplers


def create_loader(datasets, samplers, batch_size):
    return [DataLoader(d, batch_size=batch_size, sampler=s) for d, s in zip(datasets, samplers)]
