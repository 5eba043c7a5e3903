# The evaluation works out how many samples the padding repeats (the set's
# length modulo the world size) and takes the first sample of the ranks that
# hold a repeat off the sums before they are reduced: every sample counts once.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def evaluate(model, dataset):
    sampler = DistributedSampler(dataset, shuffle=False)
    loader = DataLoader(dataset, sampler=sampler, batch_size=8)
    W, rank = dist.get_world_size(), dist.get_rank()
    N = len(dataset)
    padded = (W - N % W) % W
    correct = torch.zeros(2)
    for i, (x, y) in enumerate(loader):
        hits = model(x).argmax(-1) == y
        correct += torch.tensor([hits.sum(), len(y)])
        if i == 0 and rank < padded:
            correct -= torch.tensor([hits[0], 1])
    dist.reduce(correct, 0)
    return correct[0] / correct[1]
