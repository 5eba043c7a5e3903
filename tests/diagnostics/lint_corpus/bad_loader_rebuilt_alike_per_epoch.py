# Each epoch builds the same loader again: a new sampler starts at epoch 0 every time,
# so every epoch reads each rank's share in the same order.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train_loader(dataset):
    return DataLoader(dataset, batch_size=8, sampler=DistributedSampler(dataset))


def train(dataset, epochs, step):
    dist.init_process_group("nccl")
    for epoch in range(epochs):  # expect: FS101
        loader = train_loader(dataset)
        for batch in loader:
            step(batch)
