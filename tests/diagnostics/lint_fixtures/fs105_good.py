import random

import numpy as np
import torch
from torch.utils.data import Sampler


class MySampler(Sampler):
    def __init__(self, n, seed=0):
        self.n = n
        self.seed = seed
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        rng = np.random.default_rng([self.seed, self.epoch])
        gen = torch.Generator().manual_seed(self.seed + self.epoch)
        order = rng.permutation(self.n).tolist()
        more = torch.randperm(self.n, generator=gen).tolist()
        local = random.Random(self.seed)
        return iter(order + more + [local.randrange(self.n)])

    def __len__(self):
        return 2 * self.n + 1


def augment(values):
    random.shuffle(values)  # outside a sampler: not this rule's business
    return values


class BalancedShareSampler(Sampler):
    """Intervals go to the least-loaded rank (no randomness); each rank shuffles its own."""

    def __init__(self, sizes, rank, num_replicas):
        self.sizes, self.rank, self.num_replicas = sizes, rank, num_replicas

    def __iter__(self):
        loads = [0] * self.num_replicas
        mine = []
        for index in sorted(range(len(self.sizes)), key=lambda i: -self.sizes[i]):
            target = min(range(self.num_replicas), key=lambda r: loads[r])
            if target == self.rank:
                mine.append(index)
            loads[target] += self.sizes[index]
        return iter([mine[i] for i in torch.randperm(len(mine))])


class RandomRaySampler(Sampler):
    """Each step draws a batch of rays with replacement and cuts it by rank: no coverage to lose."""

    def __init__(self, n_rays, batch_size, rank, world_size, steps):
        self.n_rays, self.batch_size, self.steps = n_rays, batch_size, steps
        self.rank, self.world_size = rank, world_size

    def __iter__(self):
        for _ in range(self.steps):
            batch = np.random.choice(self.n_rays, self.batch_size)
            yield batch[self.rank :: self.world_size].tolist()

    def __len__(self):
        return self.steps
