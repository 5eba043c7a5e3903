# A loader built inside a class: the instance carries it as `.data`.
from torch.utils.data import DataLoader, DistributedSampler


class DepthData:
    def __init__(self, config, dataset, mode):
        if mode == "train":
            self.sampler = DistributedSampler(dataset) if config.distributed else None
            self.data = DataLoader(dataset, batch_size=8, sampler=self.sampler)
        else:
            self.data = DataLoader(dataset, batch_size=1)
