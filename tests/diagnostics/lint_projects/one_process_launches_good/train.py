# Every shipped launch line runs this script as one process: CUDA_VISIBLE_DEVICES
# names one GPU (a literal, or a variable set to one above the line, or one named
# for a single GPU and set by the caller), so the padded test sampler repeats
# nothing and the loader without a sampler reads the data once.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(model, train_set, test_set, epochs):
    dist.init_process_group("nccl")
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True)
    test_sampler = DistributedSampler(test_set, shuffle=False)
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
