# The sampler variable starts as None and is set to a real sampler on the
# distributed path: there DataLoader(shuffle=True, sampler=...) raises.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train_loader(dataset, batch):
    sampler = None
    if dist.is_initialized():
        sampler = DistributedSampler(dataset)
    return DataLoader(dataset, batch_size=batch, sampler=sampler, shuffle=True)  # expect: FS102
