import torch
from torch.utils.data import Sampler


class SeededDistributedSampler(Sampler):
    def __init__(self, n, num_replicas, rank, seed=0):
        self.n, self.num_replicas, self.rank, self.seed = n, num_replicas, rank, seed
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        generator = torch.Generator()
        generator.manual_seed(self.seed + 1000003 * self.epoch)
        order = torch.randperm(self.n, generator=generator).tolist()
        return iter(order[self.rank :: self.num_replicas])

    def __len__(self):
        return len(range(self.rank, self.n, self.num_replicas))
