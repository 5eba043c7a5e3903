import torch
import torch.distributed as dist
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, Subset, SubsetRandomSampler, random_split
from transformers import set_seed

import fairshard


def split_file(hf_dataset):
    # unseeded here, but its only caller seeds NumPy alike on every rank first
    return hf_dataset.train_test_split(test_size=0.1)


def main(hf_dataset, seed):
    dist.init_process_group("nccl")
    set_seed(seed)
    return split_file(hf_dataset)


def loaders(dataset, seed):
    dist.init_process_group("nccl")
    generator = torch.Generator().manual_seed(seed)
    _, val = random_split(dataset, [0.9, 0.1], generator=generator)
    train_idx, _ = fairshard.split(len(dataset), [0.9, 0.1], seed=seed)
    part = Subset(dataset, train_idx)
    return DataLoader(part, sampler=fairshard.DistributedSampler(part)), DataLoader(val)


def seeded_library_splits(hf_dataset, features, labels, seed):
    parts = hf_dataset.train_test_split(test_size=0.1, seed=seed)
    kept = train_test_split(features, labels, test_size=0.1, random_state=seed)
    ordered = train_test_split(features, test_size=0.1, shuffle=False)
    return parts, kept, ordered


def seeded_globally(dataset, seed):
    torch.manual_seed(seed)  # the same seed on every rank: the same split
    return random_split(dataset, [8, 2])


def same_subset_everywhere(dataset, indices, seed):
    generator = torch.Generator().manual_seed(seed)
    return DataLoader(dataset, sampler=SubsetRandomSampler(indices, generator=generator))
