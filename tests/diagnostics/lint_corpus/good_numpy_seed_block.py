# A sampler that draws from np.random inside `with numpy_seed(seed, epoch):`, which seeds
# the global generator identically on every rank and restores it afterwards (fairseq style).
import contextlib

import numpy as np
import torch.distributed as dist
from torch.utils.data import Sampler


@contextlib.contextmanager
def numpy_seed(*seeds):
    state = np.random.get_state()
    np.random.seed(hash(seeds) % 2**32)
    try:
        yield
    finally:
        np.random.set_state(state)


class ShardedSampler(Sampler):
    def __init__(self, dataset, seed=0):
        self.dataset, self.seed, self.epoch = dataset, seed, 0
        self.rank, self.num_replicas = dist.get_rank(), dist.get_world_size()

    def __iter__(self):
        with numpy_seed(self.seed, self.epoch):
            order = np.random.permutation(len(self.dataset))
        return iter(order[self.rank :: self.num_replicas].tolist())

    def set_epoch(self, epoch):
        self.epoch = epoch
