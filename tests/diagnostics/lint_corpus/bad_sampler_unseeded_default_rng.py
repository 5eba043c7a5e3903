# A bucketing batch sampler that draws its order from a fresh, unseeded generator on
# every rank, then keeps this rank's row: the ranks' rows come from different orders.
import numpy as np
from torch.utils.data import Sampler


class BucketBatchSampler(Sampler):
    def __init__(self, n, batch_size, num_replicas, rank, seed=0):
        self.n, self.batch_size = n, batch_size
        self.num_replicas, self.rank, self.seed, self.epoch = num_replicas, rank, seed, 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        rng = np.random.default_rng()  # expect: FS105
        idx = rng.permutation(self.n).tolist()
        batches = [idx[i : i + self.batch_size] for i in range(0, self.n, self.batch_size)]
        k = len(batches) // self.num_replicas * self.num_replicas
        grid = np.arange(k).reshape(-1, self.num_replicas).T
        return iter([batches[i] for i in rng.permuted(grid, axis=0)[self.rank]])

    def __len__(self):
        return self.n // self.batch_size // self.num_replicas
