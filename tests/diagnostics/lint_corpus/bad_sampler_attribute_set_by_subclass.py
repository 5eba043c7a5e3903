"""A subclass sets the base data module's sampler attribute to a distributed sampler:
the base's shuffling loader then passes both, and PyTorch raises ValueError."""

from torch.utils.data import DataLoader, DistributedSampler


class BaseData:
    def __init__(self, train_set, batch_size):
        self.train_set = train_set
        self.batch_size = batch_size
        self.sampler = None

    def train_dataloader(self):
        return DataLoader(  # expect: FS102
            self.train_set, batch_size=self.batch_size, shuffle=True, sampler=self.sampler
        )


class ShardedData(BaseData):
    def __init__(self, train_set, batch_size):
        super().__init__(train_set, batch_size)
        self.sampler = DistributedSampler(train_set)
