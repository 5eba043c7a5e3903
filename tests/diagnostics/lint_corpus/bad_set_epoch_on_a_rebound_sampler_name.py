# The loader is built over the first sampler; the name is then bound to a second
# sampler no loader reads, and the epoch loop sets the epoch of that one: the
# loader's sampler never moves on, so every epoch repeats each rank's order.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train(loader, model):
    for images, _ in loader:
        model(images).sum().backward()


def main(model, dataset, epochs):
    dist.init_process_group("nccl")
    train_sampler = DistributedSampler(dataset)
    data_loader = DataLoader(dataset, batch_size=64, sampler=train_sampler)
    train_sampler = DistributedSampler(dataset)
    for epoch in range(epochs):  # expect: FS101
        train_sampler.set_epoch(epoch)
        train(data_loader, model)
