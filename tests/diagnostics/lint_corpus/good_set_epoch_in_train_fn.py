import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train_one_epoch(model, optimizer, loader, epoch):
    if isinstance(loader.sampler, DistributedSampler):
        loader.sampler.set_epoch(epoch)
    for batch in loader:
        optimizer.zero_grad()
        model(batch).sum().backward()
        optimizer.step()


def main(model, dataset, optimizer, epochs):
    dist.init_process_group("nccl")
    loader = DataLoader(dataset, batch_size=32, sampler=DistributedSampler(dataset))
    for epoch in range(epochs):
        train_one_epoch(model, optimizer, loader, epoch)
