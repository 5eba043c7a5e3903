import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

train_loader = None


def setup(dataset):
    global train_loader
    dist.init_process_group("nccl")
    train_loader = DataLoader(dataset, batch_size=32, sampler=DistributedSampler(dataset))


def train_epoch(model, optimizer):
    for batch in train_loader:
        optimizer.zero_grad()
        model(batch).sum().backward()
        optimizer.step()


def main(model, dataset, optimizer, epochs):
    setup(dataset)
    for _ in range(epochs):  # expect: FS101
        train_epoch(model, optimizer)
