"""Scores the dataclass's validation loader on each rank's own share: nothing is combined."""

import torch.distributed as dist
from data import build_loaders


def evaluate(model, val_loader):
    correct = total = 0
    for images, labels in val_loader:
        correct += int((model(images).argmax(1) == labels).sum())
        total += len(labels)
    return correct / total


def main(train_set, val_set, model):
    dist.init_process_group("nccl")
    loaders = build_loaders(train_set, val_set, dist.get_rank(), dist.get_world_size())
    for images, _ in loaders.train_loader:
        model(images)
    if dist.get_rank() == 0:
        print(evaluate(model, loaders.val_loader))
