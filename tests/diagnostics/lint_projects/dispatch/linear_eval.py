# The evaluation call names the padding branch by a literal.
import torch
import torch.distributed as dist
from data import init_data


def main(model, root):
    val_loader, val_sampler = init_data("imagenet", root, training=False)
    hits = torch.zeros(2)
    for x, y in val_loader:
        hits += torch.tensor([(model(x).argmax(1) == y).sum(), len(y)])
    dist.all_reduce(hits)
    print(hits[0] / hits[1])
