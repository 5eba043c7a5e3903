# A DistributedSampler subclass: its base sets rank, total_size and num_replicas, and the
# order is seeded from a draw of each process's own numpy state, so the ranks stride
# different permutations and their shares overlap.
import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


class ShuffleSampler(DistributedSampler):
    def __init__(self, dataset, world_size, rank):
        super().__init__(dataset, num_replicas=world_size, rank=rank)
        self._seed = -1

    def __iter__(self):
        indices = torch.arange(len(self.dataset))
        if self._seed != -1:
            g = torch.Generator()
            g.manual_seed(self._seed or np.random.randint(10e6))  # expect: FS105
            indices = indices[torch.randperm(len(indices), generator=g)]
        return iter(indices[self.rank : self.total_size : self.num_replicas].tolist())

    def shuffle_dataorder(self, seed):
        self._seed = seed


def main(dataset, epochs):
    dist.init_process_group("nccl")
    sampler = ShuffleSampler(dataset, dist.get_world_size(), dist.get_rank())
    loader = DataLoader(dataset, sampler=sampler, batch_size=32)
    for epoch in range(epochs):
        sampler.shuffle_dataorder(None)
        yield from loader
