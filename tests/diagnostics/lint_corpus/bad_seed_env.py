import os

from torch.utils.data import DataLoader

import fairshard

base_seed = 42
seed = base_seed + int(os.environ["RANK"])


def build(dataset, labels):
    sampler = fairshard.ClassBalancedSampler(labels, seed=seed)  # expect: FS104
    return DataLoader(dataset, sampler=sampler, batch_size=128)
