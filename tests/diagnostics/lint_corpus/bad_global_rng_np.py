import numpy as np
from torch.utils.data import Sampler


class ChunkSampler(Sampler):
    def __init__(self, n, num_replicas, rank):
        self.n = n
        self.num_replicas = num_replicas
        self.rank = rank

    def __iter__(self):
        order = np.random.permutation(self.n)  # expect: FS105
        chunk = self.n // self.num_replicas
        return iter(order[self.rank * chunk : (self.rank + 1) * chunk].tolist())

    def __len__(self):
        return self.n // self.num_replicas
