import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Subset, SubsetRandomSampler, random_split

import fairshard


def loaders(dataset, seed):
    dist.init_process_group("nccl")
    generator = torch.Generator().manual_seed(seed)
    _, val = random_split(dataset, [0.9, 0.1], generator=generator)
    train_idx, _ = fairshard.split(len(dataset), [0.9, 0.1], seed=seed)
    part = Subset(dataset, train_idx)
    return DataLoader(part, sampler=fairshard.DistributedSampler(part)), DataLoader(val)


def seeded_globally(dataset, seed):
    torch.manual_seed(seed)  # the same seed on every rank: the same split
    return random_split(dataset, [8, 2])


def same_subset_everywhere(dataset, indices, seed):
    generator = torch.Generator().manual_seed(seed)
    return DataLoader(dataset, sampler=SubsetRandomSampler(indices, generator=generator))
