import math
import random

import torch.distributed as dist
from torch.utils.data import Sampler


class ShardSampler(Sampler):
    def __init__(self, dataset):
        self.dataset = dataset
        self.num_replicas = dist.get_world_size()
        self.rank = dist.get_rank()
        self.num_samples = math.ceil(len(dataset) / self.num_replicas)

    def __iter__(self):
        indices = list(range(len(self.dataset)))
        random.shuffle(indices)  # expect: FS105
        indices += indices[: self.num_samples * self.num_replicas - len(indices)]
        return iter(indices[self.rank :: self.num_replicas])

    def __len__(self):
        return self.num_samples
