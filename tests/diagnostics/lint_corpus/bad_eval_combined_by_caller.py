# The same per-rank evaluation, but the caller all-reduces what it returns: repeats count.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def evaluate(model, valid_loader):
    hits, seen = 0, 0
    with torch.no_grad():
        for x, y in valid_loader:
            hits += (model(x).argmax(1) == y).sum().item()
            seen += len(y)
    return torch.tensor([hits, seen], dtype=torch.float64)


def main(model, valid_data):
    valid_sampler = DistributedSampler(valid_data, shuffle=False)  # expect: FS109
    valid_loader = DataLoader(valid_data, sampler=valid_sampler, batch_size=8)
    counts = evaluate(model, valid_loader)
    dist.all_reduce(counts)
    return (counts[0] / counts[1]).item()
