"""A subset drawn by hand with the process's own generator."""

import torch
from torch.utils.data import Subset


def maybe_subset(dataset, size=None):
    if size is None:
        return dataset
    picked = torch.randperm(len(dataset))[:size]
    return Subset(dataset, picked)
