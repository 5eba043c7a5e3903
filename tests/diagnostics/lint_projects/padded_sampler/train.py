import torch.distributed as dist
from data import create_loader


def validate(model, loader):
    correct = total = 0
    for images, labels in loader:
        correct += (model(images).argmax(1) == labels).sum()
        total += len(labels)
    dist.all_reduce(correct)
    return correct / total


def main(model, train_set, val_set, epochs):
    dist.init_process_group("nccl")
    train_loader = create_loader(train_set, 64, is_training=True)
    val_loader = create_loader(val_set, 64)
    for epoch in range(epochs):
        train_loader.sampler.set_epoch(epoch)
        for batch in train_loader:
            model(batch)
        validate(model, val_loader)
