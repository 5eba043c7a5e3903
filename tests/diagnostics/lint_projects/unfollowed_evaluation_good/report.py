# Rank 0 alone writes the report of its own share.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def report(model, dataset_test):
    sampler = DistributedSampler(dataset_test, shuffle=False)
    loader = DataLoader(dataset_test, batch_size=64, sampler=sampler)
    if dist.get_rank() == 0:
        for x, y in loader:
            print((model(x).argmax(1) == y).float().mean())
