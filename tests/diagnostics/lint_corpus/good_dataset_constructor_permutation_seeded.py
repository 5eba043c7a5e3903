# The dataset's constructor rebuilds its file list from a permutation of NumPy's global
# state, which every process seeds alike first: the shares split one order.
import numpy as np
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class MultiView(Dataset):
    def __init__(self, paths, views, test_mode=False):
        if not test_mode:
            order = np.random.permutation(len(paths) // views)
        else:
            order = list(range(len(paths) // views))
        shuffled = []
        for i in range(len(order)):
            start = order[i] * views
            shuffled.extend(paths[start : start + views])
        self.paths = shuffled

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, index):
        return self.paths[index]


def train(rank, world_size, paths, epochs):
    np.random.seed(0)
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    train_set = MultiView(paths, 12, test_mode=False)
    sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank)
    loader = DataLoader(train_set, sampler=sampler, batch_size=12)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            print(batch)


if __name__ == "__main__":
    mp.spawn(train, args=(2, [f"{i}.png" for i in range(120)], 3), nprocs=2)
