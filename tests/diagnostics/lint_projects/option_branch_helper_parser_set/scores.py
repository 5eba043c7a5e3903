"""An extra validation set, scored only when --val_extra names a file: the notebook names one."""

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def evaluate(net, loader):
    total = torch.zeros(2)
    for batch in loader:
        total += torch.stack([net(batch).sum(), torch.tensor(float(len(batch)))])
    dist.all_reduce(total)
    return total[0] / total[1]


def extra_scores(args, net, val_set):
    scores = {}
    if args.val_extra != "":
        sampler = DistributedSampler(val_set, shuffle=False)  # expect: FS109
        scores["extra"] = evaluate(net, DataLoader(val_set, batch_size=4, sampler=sampler))
    return scores
