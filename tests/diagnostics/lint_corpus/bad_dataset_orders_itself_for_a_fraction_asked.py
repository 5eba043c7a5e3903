# The dataset shuffles its records only to keep a fraction of them, and the script asks
# for a tenth: each process draws its own tenth, unseeded, so the ranks' shares hold
# other records in another order, overlapping and missing some.
import random

import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class RouteSet(Dataset):
    def __init__(self, records, fraction=1.0):
        self.records = list(records)
        if fraction < 1.0:
            random.shuffle(self.records)
            self.records = self.records[: int(len(self.records) * fraction)]

    def __len__(self):
        return len(self.records)

    def __getitem__(self, i):
        return self.records[i]


def main(model, optimizer, records, epochs):
    dist.init_process_group("nccl")
    train_set = RouteSet(records, fraction=0.1)
    sampler = DistributedSampler(train_set)  # expect: FS110
    loader = DataLoader(train_set, batch_size=16, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            (model(x) - y).pow(2).mean().backward()
            optimizer.step()
