# Evaluation through padding samplers imported from packages (their code is not in the tree).
import torch
import torch.distributed as dist
from mmengine.dataset import DefaultSampler
from timm.data.distributed_sampler import OrderedDistributedSampler as Ordered
from torch.utils.data import DataLoader


def validate(model, val_dataset):
    loader = DataLoader(val_dataset, batch_size=64, sampler=Ordered(val_dataset))  # expect: FS109
    correct = torch.zeros(2)
    for x, y in loader:
        correct += torch.tensor([(model(x).argmax(1) == y).sum(), len(y)])
    dist.all_reduce(correct)
    return correct[0] / correct[1]


def test_loader(test_dataset):
    sampler = DefaultSampler(test_dataset, shuffle=False)  # expect: FS109
    return DataLoader(test_dataset, batch_size=64, sampler=sampler)


def run_test(model, test_dataset):
    hits = sum((model(x).argmax(1) == y).sum() for x, y in test_loader(test_dataset))
    dist.all_reduce(hits)
    return hits
