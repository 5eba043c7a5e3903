import numpy as np
from torch.utils.data import DataLoader, WeightedRandomSampler


def balanced_loader(dataset, labels):
    counts = np.bincount(labels)
    weights = 1.0 / counts[labels]
    sampler = WeightedRandomSampler(weights, len(weights), replacement=False)  # expect: FS107
    return DataLoader(dataset, sampler=sampler, batch_size=64)
