# The loaders travel in a dict and the epoch function reads loaders["train"]; the epoch
# loop gives its sampler the epoch first, so every epoch draws a new order.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train(model, optimizer, loaders):
    for i, (images, labels) in enumerate(loaders["train"]):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(images), labels).backward()
        optimizer.step()


def main(model, optimizer, train_data, test_data, epochs):
    dist.init_process_group("nccl")
    train_sampler = DistributedSampler(train_data)
    loaders = {
        "train": DataLoader(train_data, batch_size=64, sampler=train_sampler),
        "test": DataLoader(test_data, batch_size=64),
    }
    for epoch in range(epochs):
        train_sampler.set_epoch(epoch)
        train(model, optimizer, loaders)
