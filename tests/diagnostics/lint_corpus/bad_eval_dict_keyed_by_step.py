# A dict of results keyed by the batch step, not by a sample id: repeats still count.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def validate(model, val_dataset):
    val_sampler = DistributedSampler(val_dataset, shuffle=False)  # expect: FS109
    val_loader = DataLoader(val_dataset, sampler=val_sampler, batch_size=8)
    accuracy = {}
    for step, (x, y) in enumerate(val_loader):
        hits = (model(x).argmax(1) == y).float().sum()
        dist.all_reduce(hits)
        accuracy[step] = hits.item()
    return sum(accuracy.values()) / len(val_dataset)
