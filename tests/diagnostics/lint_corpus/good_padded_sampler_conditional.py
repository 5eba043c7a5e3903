# Conditional samplers for training only: each arm is read, and the training
# arm's DistributedSampler gets set_epoch; the test set is read whole on rank 0.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler, SequentialSampler


def get_loaders(args, trainset, testset):
    train_sampler = (
        RandomSampler(trainset) if args.local_rank == -1 else DistributedSampler(trainset)
    )
    test_sampler = SequentialSampler(testset)
    return (
        DataLoader(trainset, sampler=train_sampler, batch_size=32),
        DataLoader(testset, sampler=test_sampler, batch_size=64),
        train_sampler,
    )


def train(args, model, trainset, testset):
    dist.init_process_group("nccl")
    train_loader, test_loader, train_sampler = get_loaders(args, trainset, testset)
    for epoch in range(args.epochs):
        if isinstance(train_sampler, DistributedSampler):
            train_sampler.set_epoch(epoch)
        for x, y in train_loader:
            model(x).sum().backward()
