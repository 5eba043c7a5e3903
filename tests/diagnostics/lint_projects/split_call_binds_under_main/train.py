"""The main guard calls the split helper as its signature allows: every rank
draws its own unseeded split, and the shares overlap."""

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, random_split


def three_way_split(dataset, train_prop=0.7, val_prop=0.2):
    n_train = int(train_prop * len(dataset))
    n_val = int(val_prop * len(dataset))
    return random_split(  # expect: FS110
        dataset, [n_train, n_val, len(dataset) - n_train - n_val]
    )


if __name__ == "__main__":
    dist.init_process_group("gloo")
    data = torch.randn(100, 4)
    train_set, val_set, test_set = three_way_split(data, val_prop=0.1)
    sampler = DistributedSampler(train_set)
    for epoch in range(2):
        sampler.set_epoch(epoch)
        for batch in DataLoader(train_set, batch_size=8, sampler=sampler):
            print(batch.shape)
