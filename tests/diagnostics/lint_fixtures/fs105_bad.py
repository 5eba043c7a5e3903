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


def setup():  # a distributed script: ranks must agree on the order
    torch.distributed.init_process_group("gloo")
