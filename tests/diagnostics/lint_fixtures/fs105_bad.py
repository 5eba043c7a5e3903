import random

import numpy as np
import torch
from torch.utils.data import Sampler


class MySampler(Sampler):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        order = list(range(self.n))
        random.shuffle(order)  # FS105
        extra = np.random.permutation(self.n)  # FS105
        rng = np.random.default_rng()  # FS105: unseeded
        more = torch.randperm(self.n)  # FS105: no generator
        return iter(order + extra.tolist() + rng.permutation(3).tolist() + more.tolist())

    def __len__(self):
        return self.n


class BalancedSampler(Sampler):
    def __init__(self, sizes, rank, num_replicas):
        self.sizes, self.rank, self.num_replicas = sizes, rank, num_replicas

    def __iter__(self):
        mine, seen = [], []
        for index, _size in enumerate(self.sizes):
            if index % self.num_replicas == self.rank:
                seen.append(index)  # only logged: the draw below is over every index
        order = torch.randperm(len(self.sizes))  # FS105
        mine = [int(i) for i in order[self.rank :: self.num_replicas]]
        return iter(mine)


def setup():  # a distributed script: ranks must agree on the order
    torch.distributed.init_process_group("gloo")
