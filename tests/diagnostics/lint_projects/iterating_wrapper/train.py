# Passes over the wrapper until a step budget is spent: every pass repeats each rank's order.
import torch.distributed as dist
from data import DataIterator


class FastIterator(DataIterator):
    pass


def train(model, dataset, iterations, world, fast):
    dist.init_process_group("nccl")
    data_iterator = (FastIterator if fast else DataIterator)(dataset, 16, world)
    iteration = 0
    while iteration < iterations:  # expect: FS101
        for i, (x, y) in enumerate(data_iterator):
            model(x).backward()
            iteration += 1
            if iteration == iterations:
                break
