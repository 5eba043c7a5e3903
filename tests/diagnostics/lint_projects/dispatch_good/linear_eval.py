# The evaluation calls take the branch that does not pad (a literal), or a branch
# that cannot be read here (a name from the config): neither is reported.
import torch
import torch.distributed as dist
from data import init_data


def _score(model, loader):
    hits = torch.zeros(2)
    for x, y in loader:
        hits += torch.tensor([(model(x).argmax(1) == y).sum(), len(y)])
    dist.all_reduce(hits)
    return hits[0] / hits[1]


def main(model, root, config):
    val_loader, val_sampler = init_data("cifar10", root, training=False)
    print(_score(model, val_loader))
    test_loader, test_sampler = init_data(config["dataset"], root, training=False)
    print(_score(model, test_loader))
