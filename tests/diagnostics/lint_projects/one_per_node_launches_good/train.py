# Every shipped line runs one process on one node: the loader without a sampler
# reads the set once and the padded sampler repeats nothing.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(model, train_set, val_set, epochs):
    dist.init_process_group("nccl")
    train_loader = DataLoader(train_set, batch_size=1, shuffle=True)
    val_sampler = DistributedSampler(val_set, shuffle=False)
    val_loader = DataLoader(val_set, batch_size=1, sampler=val_sampler)
    for epoch in range(epochs):
        for tokens, targets in train_loader:
            model(tokens, targets).backward()
        stats = torch.zeros(2)
        with torch.no_grad():
            for tokens, targets in val_loader:
                stats += torch.tensor([model(tokens, targets).item(), 1.0])
        dist.all_reduce(stats)
        print(epoch, (stats[0] / stats[1]).item())
