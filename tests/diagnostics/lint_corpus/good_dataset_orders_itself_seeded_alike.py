# The dataset shuffles its arrays in its constructor from NumPy's global generator, and
# every process seeds that generator alike first: the ranks hold the items in one order,
# and the sampler's index ranges are disjoint shares of it.
import numpy as np
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler, Subset


class CurveDataset(Dataset):
    def __init__(self, features, targets, shuffle=True):
        self.features = np.asarray(features)
        self.targets = np.asarray(targets)
        if shuffle:
            self._shuffle_data()

    def _shuffle_data(self):
        indices = np.arange(len(self.features))
        np.random.shuffle(indices)
        self.features = self.features[indices]
        self.targets = self.targets[indices]

    def __len__(self):
        return len(self.features)

    def __getitem__(self, i):
        return self.features[i], self.targets[i]


def main(model, optimizer, features, targets, epochs):
    dist.init_process_group("nccl")
    np.random.seed(1234)
    dataset = CurveDataset(features, targets)
    train_set = Subset(dataset, range(int(0.9 * len(dataset))))
    sampler = DistributedSampler(train_set, seed=0)
    loader = DataLoader(train_set, batch_size=16, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            (model(x) - y).pow(2).mean().backward()
            optimizer.step()
