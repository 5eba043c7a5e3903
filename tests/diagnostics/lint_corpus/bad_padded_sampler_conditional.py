# The evaluation sampler is one arm of a conditional expression: padded under
# torchrun, and the per-rank accuracies are averaged with an all-reduce.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler, SequentialSampler


def get_loader(args, trainset, testset):
    train_sampler = (
        RandomSampler(trainset) if args.local_rank == -1 else DistributedSampler(trainset)
    )
    test_sampler = (
        SequentialSampler(testset)
        if args.local_rank == -1
        else DistributedSampler(testset)  # expect: FS109
    )
    train_loader = DataLoader(trainset, sampler=train_sampler, batch_size=32)
    test_loader = DataLoader(testset, sampler=test_sampler, batch_size=64)
    return train_loader, test_loader


def valid(model, test_loader):
    correct = torch.zeros(1)
    for x, y in test_loader:
        correct += (model(x).argmax(1) == y).sum()
    dist.all_reduce(correct)
    return correct


def main(args, model, trainset, testset):
    train_loader, test_loader = get_loader(args, trainset, testset)
    for x, y in train_loader:
        model(x).sum().backward()
    return valid(model, test_loader)
