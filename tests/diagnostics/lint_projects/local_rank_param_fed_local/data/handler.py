"""A loader method whose parameter is named local_rank; its callers pass the global rank."""

from torch.utils.data import DataLoader, DistributedSampler


class DataHandler:
    def __init__(self, dataset):
        self.dataset = dataset

    def loader(self, world_size=None, local_rank=None):
        data, world = self.dataset, world_size
        sampler = DistributedSampler(data, num_replicas=world, rank=local_rank)  # expect: FS111
        return DataLoader(self.dataset, sampler=sampler), sampler
