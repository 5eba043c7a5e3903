# One pass over the loader: a loop of one iteration is no epoch loop, nothing repeats.
import torch
from torch.utils.data import DataLoader, DistributedSampler


def embed(encoder, data_loader, epochs=1):
    feats = []
    for _ in range(epochs):
        for images, _labels in data_loader:
            feats.append(encoder(images))
    return torch.cat(feats)


def once(encoder, data_loader):
    for _ in range(1):
        for images, _labels in data_loader:
            encoder(images)


def main(encoder, dataset):
    loader = DataLoader(dataset, sampler=DistributedSampler(dataset))
    once(encoder, loader)
    return embed(encoder, loader)
