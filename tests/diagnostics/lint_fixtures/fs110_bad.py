import torch.distributed as dist
from torch.utils.data import DataLoader, SubsetRandomSampler, random_split


def loaders(dataset, train_indices):
    dist.init_process_group("nccl")
    train, val = random_split(dataset, [0.9, 0.1])  # FS110
    sampler = SubsetRandomSampler(train_indices)  # FS110
    return DataLoader(train), DataLoader(val), DataLoader(dataset, sampler=sampler)
