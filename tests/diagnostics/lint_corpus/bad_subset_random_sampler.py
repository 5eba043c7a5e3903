import numpy as np
import torch.distributed as dist
from torch.utils.data import DataLoader, SubsetRandomSampler


def loaders(dataset, valid_size, batch_size):
    dist.init_process_group("nccl")
    indices = list(range(len(dataset)))
    np.random.shuffle(indices)
    split = int(np.floor(valid_size * len(dataset)))
    train_idx = indices[split:]
    train_sampler = SubsetRandomSampler(train_idx)  # expect: FS110
    return DataLoader(dataset, batch_size=batch_size, sampler=train_sampler)
