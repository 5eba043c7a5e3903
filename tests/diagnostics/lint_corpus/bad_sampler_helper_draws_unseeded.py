# The sampler draws in a helper that no caller seeds first: each rank slices its own order.
import numpy as np
import torch.distributed as dist
from torch.utils.data import Sampler


def shared_random_seed():
    out = [None] * dist.get_world_size()
    dist.all_gather_object(out, np.random.randint(2**31))
    return out[0]  # rank 0's value, on every rank


class IdentitySamplerDDP(Sampler):
    def __init__(self, n):
        self.n, self.rank, self.world = n, dist.get_rank(), dist.get_world_size()

    def _sample(self):
        idx = list(range(self.n))
        np.random.shuffle(idx)  # expect: FS105
        return idx

    def __iter__(self):
        order = self._sample()
        return iter(order[self.rank :: self.world])

    def __len__(self):
        return self.n // self.world
