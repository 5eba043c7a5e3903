# The same loop, written out in one function.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def loaders(datasets):
    dist.init_process_group("nccl")
    out = {}
    for split in ("train", "val"):
        sampler = DistributedSampler(datasets[split])  # expect: FS109
        out[split] = DataLoader(datasets[split], batch_size=32, sampler=sampler)
    return out


def evaluate(model, loaders):
    correct = torch.zeros(())
    for x, y in loaders["val"]:
        correct += (model(x).argmax(1) == y).sum()
    dist.all_reduce(correct)  # the ranks' counts combined, repeats included
    return correct
