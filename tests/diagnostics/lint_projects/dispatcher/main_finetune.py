# The finetuning script validates with an all-reduce of its accuracy.
import torch
import torch.distributed as dist
from data import build_loader


def validate(loader, model):
    hits = torch.zeros(2)
    for x, y in loader:
        hits += torch.tensor([(model(x).argmax(1) == y).sum(), len(y)])
    dist.all_reduce(hits)
    return hits[0] / hits[1]


def main(config, model):
    _, _, loader_train, loader_val = build_loader(config, is_pretrain=False)
    for epoch in range(config.epochs):
        loader_train.sampler.set_epoch(epoch)
        for x, y in loader_train:
            model(x).sum().backward()
        validate(loader_val, model)
