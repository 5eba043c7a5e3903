import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(args, model, train_set, val_set, optimizer):
    dist.init_process_group("nccl")
    train_loader = DataLoader(train_set, batch_size=64, sampler=DistributedSampler(train_set))
    val_sampler = DistributedSampler(val_set, shuffle=False)  # expect: FS109
    val_loader = DataLoader(val_set, batch_size=64, sampler=val_sampler)
    for epoch in range(args.epochs):  # expect: FS101
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            hits = sum((model(x).argmax(1) == y).sum() for x, y in val_loader)
        dist.all_reduce(hits)
