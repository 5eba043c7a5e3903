import random

import torch.distributed as dist
from torch.utils.data import Sampler


class LocalShuffleSampler(Sampler):
    """Each rank owns a fixed contiguous shard and only reorders inside it."""

    def __init__(self, n):
        self.num_replicas = dist.get_world_size()
        self.rank = dist.get_rank()
        per_rank = n // self.num_replicas
        self.indices = list(range(n))[self.rank * per_rank : (self.rank + 1) * per_rank]

    def __iter__(self):
        local = list(self.indices)
        random.shuffle(local)
        return iter(local)

    def __len__(self):
        return len(self.indices)
