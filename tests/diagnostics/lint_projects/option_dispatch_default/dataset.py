"""One method per mining mode, picked by the --mining option."""

import numpy as np
from torch.utils.data import DataLoader, Dataset, DistributedSampler, Subset


class TripletsDataset(Dataset):
    def __init__(self, args, n):
        self.mining = args.mining
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        return index

    def compute_triplets(self, args):
        if self.mining == "random":
            return self.compute_triplets_random(args)
        elif self.mining == "partial_sep":
            return self.compute_triplets_partial_sep(args)
        raise NotImplementedError(self.mining)

    def compute_triplets_random(self, args):
        sampled = np.random.choice(self.n, args.refresh, replace=False)  # expect: FS110
        subset = Subset(self, list(sampled))
        return DataLoader(subset, batch_size=8, sampler=DistributedSampler(subset))

    def compute_triplets_partial_sep(self, args):
        subset = Subset(self, list(range(args.refresh)))
        return DataLoader(subset, batch_size=8, sampler=DistributedSampler(subset))
