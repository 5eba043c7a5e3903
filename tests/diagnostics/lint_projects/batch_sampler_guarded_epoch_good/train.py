"""The epoch is set through the batch sampler's sampler, under a guard."""

from data import build_loaders
from torch.utils.data import DistributedSampler


def train_epoch(model, optimizer, loader, epoch):
    if isinstance(loader.batch_sampler.sampler, DistributedSampler):
        loader.batch_sampler.sampler.set_epoch(epoch)
    for batch in loader:
        optimizer.zero_grad()
        model(batch).mean().backward()
        optimizer.step()


def main(model, optimizer, train_set, test_set):
    train_loader, _ = build_loaders(train_set, test_set, 64)
    for epoch in range(100):
        train_epoch(model, optimizer, train_loader, epoch)


if __name__ == "__main__":
    main(None, None, None, None)
