"""A base data module keeps a sampler attribute that nothing ever sets past None:
its shuffling loader passes no sampler, and PyTorch builds it."""

from torch.utils.data import DataLoader


class BaseData:
    def __init__(self, train_set, batch_size):
        self.train_set = train_set
        self.batch_size = batch_size
        self.sampler = None

    def train_dataloader(self):
        return DataLoader(
            self.train_set, batch_size=self.batch_size, shuffle=True, sampler=self.sampler
        )
