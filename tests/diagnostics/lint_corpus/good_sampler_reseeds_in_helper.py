# The sampler reseeds its generator alike in a helper it calls before drawing.
import numpy as np
import torch.distributed as dist
from torch.utils.data import Sampler


class IdentitySamplerDDP(Sampler):
    def __init__(self, n, seed=0):
        self.n, self.seed, self.epoch = n, seed, 0
        self.rank, self.world = dist.get_rank(), dist.get_world_size()

    def _reseed(self):
        np.random.seed(self.seed + self.epoch)  # same on every rank

    def __iter__(self):
        self._reseed()
        idx = list(range(self.n))
        np.random.shuffle(idx)
        return iter(idx[self.rank :: self.world])

    def __len__(self):
        return self.n // self.world
