# One replica for evaluation: the whole validation set on each process, nothing padded.
import torch
import torch.distributed as dist
from data import init_data
from torch.utils.data import DataLoader, DistributedSampler


def main(model, root, test_set):
    val_loader, val_sampler = init_data(root, 64, world_size=1, rank=0, training=False)
    test_loader = DataLoader(test_set, sampler=DistributedSampler(test_set, 1, 0))
    hits = torch.zeros(2)
    for loader in (val_loader, test_loader):
        for x, y in loader:
            hits += torch.tensor([(model(x).argmax(1) == y).sum(), len(y)])
    dist.all_reduce(hits)
    print(hits[0] / hits[1])
