"""A data module whose setup splits through the helper, in every process."""

import lightning as L
from torch.utils.data import DataLoader
from utils import split_dataset


class PretrainData(L.LightningDataModule):
    def __init__(self, dataset):
        super().__init__()
        self.dataset = dataset

    def setup(self, stage=None):
        self.train_set, self.val_set = split_dataset(self.dataset, 0.9)

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=8, shuffle=True)
