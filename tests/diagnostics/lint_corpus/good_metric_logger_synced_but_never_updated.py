"""A validation over a padded sampler iterates a metric logger's log_every, adds its
error into a plain per-rank sum, and syncs the logger: the loop never updates the
logger, so the sync combines nothing the loop read (its timers stay local), and
rank 0 reports its own sum."""

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class MetricLogger:
    def __init__(self):
        self.meters = {}

    def update(self, **values):
        self.meters.update(values)

    def log_every(self, iterable, print_freq):
        yield from iterable

    def synchronize_between_processes(self):
        for meter in self.meters.values():
            dist.all_reduce(meter)


def validate(model, val_set):
    sampler = DistributedSampler(val_set, shuffle=False)
    loader = DataLoader(val_set, batch_size=1, sampler=sampler)
    logger = MetricLogger()
    val_mae = 0.0
    for step, (images, counts) in enumerate(logger.log_every(loader, 10)):
        val_mae += (model(images).sum() - counts).abs().item()
    logger.synchronize_between_processes()
    if dist.get_rank() == 0:
        print("val mae", val_mae)
