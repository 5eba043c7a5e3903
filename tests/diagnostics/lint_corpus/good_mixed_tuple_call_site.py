# The call site's tuple mixes training and evaluation names; the padded sampler
# flows into the first returned loader, which the call site names train_loader
# (training: padding is harmless there). The evaluation loader reads in order on
# every rank and is not combined.
from torch.utils.data import DataLoader, DistributedSampler, SequentialSampler


def get_loaders(first, second):
    sampler_a = DistributedSampler(first)
    loader_a = DataLoader(first, sampler=sampler_a, batch_size=32)
    loader_b = DataLoader(second, sampler=SequentialSampler(second), batch_size=64)
    return loader_a, loader_b


def main(args, model, first, second):
    train_loader, test_loader = get_loaders(first, second)
    for epoch in range(args.epochs):
        train_loader.sampler.set_epoch(epoch)
        for x, y in train_loader:
            model(x).sum().backward()
        for x, y in test_loader:
            model(x)
