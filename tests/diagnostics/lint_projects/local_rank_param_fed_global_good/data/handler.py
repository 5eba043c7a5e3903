"""A loader method whose parameter is named local_rank; its callers pass the global rank."""

from torch.utils.data import DataLoader, DistributedSampler


class DataHandler:
    def __init__(self, dataset):
        self.dataset = dataset

    def loader(self, world_size=None, local_rank=None):
        sampler = DistributedSampler(self.dataset, num_replicas=world_size, rank=local_rank)
        return DataLoader(self.dataset, sampler=sampler), sampler
