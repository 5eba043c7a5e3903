# The same conditional options dict, but each rank reports its own share's error: the
# padding repeats nothing within a share, and nothing is combined.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def validate(model, val_loader):
    totals = torch.zeros(2)
    with torch.no_grad():
        for x, y in val_loader:
            totals += torch.stack([(model(x) - y).abs().sum(), torch.tensor(float(len(y)))])
    return (totals[0] / totals[1]).item()


def main(model, train_set, val_set, epochs):
    dist.init_process_group("nccl")
    train_sampler = DistributedSampler(train_set)
    val_sampler = DistributedSampler(val_set) if val_set else None
    val_kwargs = {"batch_size": 1, "sampler": val_sampler} if val_set else None
    train_loader = DataLoader(train_set, batch_size=8, sampler=train_sampler)
    val_loader = DataLoader(val_set, **val_kwargs) if val_set else None
    for epoch in range(epochs):
        train_sampler.set_epoch(epoch)
        for x, y in train_loader:
            model(x)
        print(validate(model, val_loader))
