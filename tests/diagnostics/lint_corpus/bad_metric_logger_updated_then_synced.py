"""A validation over a padded sampler updates a metric logger in its loop and syncs it:
the padded repeats are summed over the ranks."""

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
    sampler = DistributedSampler(val_set, shuffle=False)  # expect: FS109
    loader = DataLoader(val_set, batch_size=1, sampler=sampler)
    logger = MetricLogger()
    for step, (images, counts) in enumerate(logger.log_every(loader, 10)):
        logger.update(mae=(model(images).sum() - counts).abs())
    logger.synchronize_between_processes()
    if dist.get_rank() == 0:
        print("val mae", logger.meters)
