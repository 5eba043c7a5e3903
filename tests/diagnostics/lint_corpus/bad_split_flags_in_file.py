# Per-split flags written beside the loop: the unshuffled splits are evaluated.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def build_loaders(train_set, val_set, test_set):
    loaders = []
    for dataset, shuffle in zip([train_set, val_set, test_set], [True, False, False]):
        sampler = DistributedSampler(dataset, shuffle=shuffle)  # expect: FS109
        loaders.append(DataLoader(dataset, batch_size=32, sampler=sampler))
    return loaders


def build_named(splits):
    is_trains = [True, False]
    out = []
    for dataset, is_train in zip(splits, is_trains):
        out.append(DistributedSampler(dataset, shuffle=is_train))  # expect: FS109
    return out


def score(model, loaders):
    hits = sum((model(x).argmax(1) == y).sum() for x, y in loaders[1])
    dist.all_reduce(hits)
    return hits
