import torch
from torch.utils.data import DataLoader

import fairshard


def evaluate(model, val_dataset, num_classes):
    sampler = fairshard.DistributedEvalSampler(val_dataset)
    metrics = fairshard.ExactMetrics(num_classes)
    with torch.no_grad():
        for x, y in DataLoader(val_dataset, sampler=sampler, batch_size=256):
            metrics.update(model(x).argmax(1), y)
    return metrics.compute()
