import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def evaluate(model, val_dataset):
    sampler = DistributedSampler(val_dataset, shuffle=False)  # FS109
    correct = 0
    for x, y in DataLoader(val_dataset, sampler=sampler):
        correct += (model(x).argmax(1) == y).sum()
    dist.all_reduce(correct)
    return correct / len(val_dataset)


def build_test_loader(dataset_test):
    return DataLoader(dataset_test, sampler=DistributedSampler(dataset_test))  # FS109


def test(model, dataset_test):
    loader = build_test_loader(dataset_test)
    correct = 0
    for x, y in loader:
        correct += (model(x).argmax(1) == y).sum()
    dist.all_reduce(correct)  # the repeats of the padding are counted
    return correct / len(dataset_test)
