# The name is bound to a second sampler, and the loader is rebuilt over it: the
# epoch loop sets the epoch of the sampler the loader reads.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train(loader, model):
    for images, _ in loader:
        model(images).sum().backward()


def main(model, dataset, subset, epochs):
    dist.init_process_group("nccl")
    train_sampler = DistributedSampler(dataset)
    data_loader = DataLoader(dataset, batch_size=64, sampler=train_sampler)
    train(data_loader, model)  # one warm-up pass over the whole set
    train_sampler = DistributedSampler(subset)
    data_loader = DataLoader(subset, batch_size=64, sampler=train_sampler)
    for epoch in range(epochs):
        train_sampler.set_epoch(epoch)
        train(data_loader, model)
