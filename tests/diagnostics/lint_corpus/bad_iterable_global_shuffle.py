# An IterableDataset shuffles its file list with the module-level generator,
# then cuts the slice of its worker and rank: every DataLoader worker seeds
# `random` with its own seed, so the slices come from different permutations.
import random

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import IterableDataset, get_worker_info


class ShardedFiles(IterableDataset):
    def __init__(self, files):
        self.files = list(files)

    def __iter__(self):
        random.shuffle(self.files)  # expect: FS105
        info = get_worker_info()
        rank, world = dist.get_rank(), dist.get_world_size()
        shards = info.num_workers * world
        per = len(self.files) // shards
        start = (rank * info.num_workers + info.id) * per
        for path in self.files[start : start + per]:
            yield torch.from_numpy(np.load(path))
