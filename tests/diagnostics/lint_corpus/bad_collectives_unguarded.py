# The same script, but its collective runs unguarded: it needs a process group,
# so it runs as one of several ranks, each reading the whole training set.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader


def evaluate(model, loader):
    hits = torch.zeros(2)
    for x, y in loader:
        hits += torch.tensor([(model(x).argmax(-1) == y).sum(), len(y)])
    dist.barrier()
    dist.all_reduce(hits)
    return hits[0] / hits[1]


def main(model, train_set, val_set, epochs):
    rank, world_size = dist.get_rank(), dist.get_world_size()
    loader = DataLoader(train_set, batch_size=8, shuffle=True)  # expect: FS103
    for _ in range(epochs):
        for x, y in loader:
            model(x).sum().backward()
        if rank == 0:
            print(evaluate(model, DataLoader(val_set, batch_size=8)), world_size)
