# The distributed script imports the dataset class and shards its own loader.
import torch.distributed as dist
from dataset import SlideDataset
from torch.utils.data import DataLoader, DistributedSampler


def main(model, items, epochs):
    dist.init_process_group("nccl")
    dataset = SlideDataset(items)
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=4, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            model(batch).sum().backward()
