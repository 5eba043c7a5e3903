# The same script, and the README also runs it on every visible GPU: that run
# reads the whole training set on every rank and counts padded test images twice.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(model, train_set, test_set, epochs):
    dist.init_process_group("nccl")
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True)  # expect: FS103
    test_sampler = DistributedSampler(test_set, shuffle=False)  # expect: FS109
    test_loader = DataLoader(test_set, batch_size=64, sampler=test_sampler)
    for epoch in range(epochs):
        for images, labels in train_loader:
            model(images).sum().backward()
        correct = torch.zeros(2)
        for images, labels in test_loader:
            hits = (model(images).argmax(1) == labels).sum()
            correct += torch.tensor([hits.item(), len(labels)])
        dist.all_reduce(correct)
        print(epoch, (correct[0] / correct[1]).item())
