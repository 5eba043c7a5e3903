import time

from torch.utils.data import DataLoader, DistributedSampler


def time_iter(iterable):
    it = iter(iterable)
    while True:
        start = time.perf_counter()
        try:
            item = next(it)
        except StopIteration:
            break
        yield time.perf_counter() - start, item


def create_dist_dataloader(dataset, rank, world_size):
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank)
    return DataLoader(dataset, sampler=sampler, batch_size=8)
