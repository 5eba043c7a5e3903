# A copy with distribution switched off by hand (rank and world size set to 0
# and 1, no process group): its only collectives run under
# dist.is_initialized(), which never holds, so each launched copy is a run
# of its own and its shuffling loader reads its data once.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader


def evaluate(model, loader):
    hits = torch.zeros(2)
    for x, y in loader:
        hits += torch.tensor([(model(x).argmax(-1) == y).sum(), len(y)])
    if dist.is_initialized():
        dist.all_reduce(hits)
    return hits[0] / hits[1]


def main(model, train_set, val_set, epochs):
    rank, world_size = 0, 1
    loader = DataLoader(train_set, batch_size=8, shuffle=True)
    for _ in range(epochs):
        for x, y in loader:
            model(x).sum().backward()
        if rank == 0:
            print(evaluate(model, DataLoader(val_set, batch_size=8)), world_size)
