# The same class, but its constructor cuts a random sample of the clips into
# training and validation parts: drawn on each rank unseeded, the parts differ.
import random

import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class Clips(Dataset):
    def __init__(self, clips, k):
        picked = random.sample(clips, len(clips))  # expect: FS110
        self.train = picked[:k]
        self.valid = picked[k:]

    def __len__(self):
        return len(self.train)

    def __getitem__(self, idx):
        return self.train[idx]


def loader(clips):
    dist.init_process_group("gloo")
    data = Clips(clips, 100)
    return DataLoader(data, sampler=DistributedSampler(data), batch_size=4)
