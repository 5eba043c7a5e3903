import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, random_split


def loaders(dataset, seed, batch_size):
    dist.init_process_group("nccl")
    generator = torch.Generator().manual_seed(seed)
    train_set, val_set = random_split(dataset, [0.8, 0.2], generator=generator)
    train_loader = DataLoader(train_set, batch_size, sampler=DistributedSampler(train_set))
    return train_loader, val_set
