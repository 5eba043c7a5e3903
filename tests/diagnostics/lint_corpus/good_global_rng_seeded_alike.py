# A sampler that seeds the module-level generators alike on every rank: seeding is no draw,
# and a draw right after a same-on-every-rank seed is the same draw everywhere.
import random

import numpy as np
import torch.distributed as dist
from torch.utils.data import Sampler


class LengthGroupedDistributedSampler(Sampler):
    def __init__(self, lengths, seed=0):
        random.seed(seed)
        np.random.seed(seed)
        self.lengths = lengths
        self.seed = seed
        self.epoch = 0
        self.rank = dist.get_rank()
        self.num_replicas = dist.get_world_size()

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        random.seed(self.seed + self.epoch)
        order = list(range(len(self.lengths)))
        random.shuffle(order)
        usable = len(order) // self.num_replicas * self.num_replicas
        return iter(order[self.rank : usable : self.num_replicas])

    def __len__(self):
        return len(self.lengths) // self.num_replicas
