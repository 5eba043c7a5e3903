"""A dataset featurizes molecules with torch.unique over bond indices; the evaluation pads.

The dataset's unique keeps atoms, not one result per evaluated sample: the
padded test loss, summed over the ranks, still counts repeats twice.
"""

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class Molecules(Dataset):
    def __init__(self, bonds):
        self.bonds = bonds

    def __len__(self):
        return len(self.bonds)

    def aromatic_atoms(self, bond_index):
        return torch.unique(bond_index.flatten())

    def __getitem__(self, i):
        return self.aromatic_atoms(self.bonds[i]).float().sum()


def evaluate(model, test_set, rank, world_size):
    sampler = DistributedSampler(test_set, world_size, rank, shuffle=False)  # expect: FS109
    total = torch.zeros(2)
    for batch in DataLoader(test_set, batch_size=4, sampler=sampler):
        total += torch.stack([model(batch).sum(), torch.tensor(float(len(batch)))])
    dist.all_reduce(total)
    return total[0] / total[1]
