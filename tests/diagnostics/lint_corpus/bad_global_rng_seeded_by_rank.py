# Seeding is no draw, but a draw after a seed that reads the rank is a different draw per rank.
import random

import torch.distributed as dist
from torch.utils.data import Sampler


class RankSeededSampler(Sampler):
    def __init__(self, dataset, seed=0):
        self.dataset = dataset
        self.seed = seed
        self.rank = dist.get_rank()
        self.num_replicas = dist.get_world_size()

    def __iter__(self):
        random.seed(self.seed + self.rank)
        order = list(range(len(self.dataset)))
        random.shuffle(order)  # expect: FS105
        return iter(order[: len(order) // self.num_replicas])

    def __len__(self):
        return len(self.dataset) // self.num_replicas
