# The builder makes one DistributedSampler up front, but only its training
# branch reads it; the evaluation branch hands each rank a strided share of
# its own (no padding), and the counts are summed across ranks.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, Subset


def build_loader(dataset, is_training, batch_size):
    sampler = DistributedSampler(dataset, shuffle=is_training)
    if is_training:
        loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler, drop_last=True)
    else:
        rank, world = dist.get_rank(), dist.get_world_size()
        share = Subset(dataset, list(range(rank, len(dataset), world)))
        loader = DataLoader(share, batch_size=batch_size, shuffle=False)
    return loader


def main(args, model, train_set, val_set):
    dist.init_process_group("nccl")
    train_loader = build_loader(train_set, True, args.batch_size)
    val_loader = build_loader(val_set, False, args.batch_size)
    for epoch in range(args.epochs):
        train_loader.sampler.set_epoch(epoch)
        for x, y in train_loader:
            model(x).sum().backward()
        correct, total = torch.zeros(1), torch.zeros(1)
        for x, y in val_loader:
            correct += (model(x).argmax(1) == y).sum()
            total += len(y)
        dist.all_reduce(correct)
        dist.all_reduce(total)
