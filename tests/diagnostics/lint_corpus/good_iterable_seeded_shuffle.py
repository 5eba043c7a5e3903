# The same dataset draws its permutation from a generator seeded by (seed,
# epoch), the same in every worker and rank, before cutting its slice; and a
# buffer shuffle after the split only reorders the worker's own slice.
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import IterableDataset, get_worker_info


class ShardedFiles(IterableDataset):
    def __init__(self, files, seed):
        self.files = list(files)
        self.seed = seed
        self.epoch = 0

    def __iter__(self):
        order = np.random.default_rng([self.seed, self.epoch]).permutation(len(self.files))
        info = get_worker_info()
        rank, world = dist.get_rank(), dist.get_world_size()
        shards = info.num_workers * world
        per = len(self.files) // shards
        start = (rank * info.num_workers + info.id) * per
        mine = [self.files[i] for i in order[start : start + per]]
        random.shuffle(mine)
        for path in mine:
            yield torch.from_numpy(np.load(path))
