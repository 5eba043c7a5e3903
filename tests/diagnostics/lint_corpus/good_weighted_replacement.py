import numpy as np
from torch.utils.data import DataLoader, WeightedRandomSampler


def balanced_loader(dataset, labels, subset_size):
    weights = 1.0 / np.bincount(labels)[labels]
    sampler = WeightedRandomSampler(weights, len(weights), replacement=True)
    subset = WeightedRandomSampler(weights, subset_size, replacement=False)  # a weighted subset
    return DataLoader(dataset, sampler=sampler), DataLoader(dataset, sampler=subset)
