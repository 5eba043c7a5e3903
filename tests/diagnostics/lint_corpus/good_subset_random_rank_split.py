# Indices already split by rank, then shuffled per rank: a disjoint share each (Swin's
# zip/cache "part" mode).
import numpy as np
import torch.distributed as dist
from torch.utils.data import DataLoader, SubsetRandomSampler


def build(dataset_train):
    indices = np.arange(dist.get_rank(), len(dataset_train), dist.get_world_size())
    sampler_train = SubsetRandomSampler(indices)
    return DataLoader(dataset_train, sampler=sampler_train, batch_size=32)
