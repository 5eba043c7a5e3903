import torch.distributed as dist
from engine import train
from torch.utils.data import DataLoader, DistributedSampler


def main(model, dataset, optimizer, epochs):
    dist.init_process_group("nccl")
    loader = DataLoader(dataset, batch_size=32, sampler=DistributedSampler(dataset))
    for epoch in range(epochs):
        train(model, loader, optimizer, epoch)
