# The same training, and one launch line starts 3 processes: 10,000 test images
# do not divide by 3, so one image is read twice and the all-reduced accuracy
# counts it twice.
import torch
import torch.distributed as dist
import torchvision
from torch.utils.data import DataLoader, DistributedSampler


def main(model, root, epochs):
    dist.init_process_group("nccl")
    train_set = torchvision.datasets.CIFAR10(root, train=True)
    test_set = torchvision.datasets.CIFAR10(root, train=False)
    train_sampler = DistributedSampler(train_set)
    test_sampler = DistributedSampler(test_set)  # expect: FS109
    train_loader = DataLoader(train_set, batch_size=128, sampler=train_sampler)
    test_loader = DataLoader(test_set, batch_size=128, sampler=test_sampler)
    for epoch in range(epochs):
        train_sampler.set_epoch(epoch)
        for images, labels in train_loader:
            model(images).sum().backward()
        correct = torch.zeros(2)
        for images, labels in test_loader:
            hits = (model(images).argmax(1) == labels).sum()
            correct += torch.tensor([hits.item(), len(labels)])
        dist.all_reduce(correct)
        print(epoch, (correct[0] / correct[1]).item())
