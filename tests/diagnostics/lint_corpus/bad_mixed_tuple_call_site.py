# The builder's names say neither training nor evaluation; the call site's tuple
# mixes both. The second sampler flows into the second returned loader, which
# the call site names test_loader: a padded evaluation, all-reduced.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def get_loaders(first, second):
    sampler_a = DistributedSampler(first)
    sampler_b = DistributedSampler(second)  # expect: FS109
    loader_a = DataLoader(first, sampler=sampler_a, batch_size=32)
    loader_b = DataLoader(second, sampler=sampler_b, batch_size=64)
    return loader_a, loader_b


def main(args, model, first, second):
    dist.init_process_group("nccl")
    train_loader, test_loader = get_loaders(first, second)
    for epoch in range(args.epochs):
        train_loader.sampler.set_epoch(epoch)
        for x, y in train_loader:
            model(x).sum().backward()
        correct = torch.zeros(1)
        for x, y in test_loader:
            correct += (model(x).argmax(1) == y).sum()
        dist.all_reduce(correct)
