# In a distributed script: a left-over sampler whose __iter__ reads attributes nothing
# sets (it raises before any draw), and a weighted sampler every rank draws for itself
# with replacement (independent samples, by design).
import bisect

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import Sampler

dist.init_process_group("nccl")


class SuccessiveRandomSampler(Sampler):
    def __init__(self, dataset):
        self.dataset = dataset

    def __iter__(self):
        if self.shuffle:
            indices = torch.randperm(self.total_size).tolist()
        return iter(indices[self.rank : self.total_size : self.num_replicas])


class RandomSampleSampler(Sampler):
    def __init__(self, data_source, weights, size):
        self.data_source, self.size = data_source, size
        self.cum_prob = np.cumsum(np.array(weights) / np.sum(weights))

    def __iter__(self):
        for _ in range(self.size):
            yield bisect.bisect(self.cum_prob, torch.rand(1)[0], hi=len(self.data_source) - 1)

    def __len__(self):
        return self.size
