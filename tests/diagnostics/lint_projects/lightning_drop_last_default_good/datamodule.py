"""The data module keeps drop_last=True by default and hands it to its validation loader:
the padded repeats fall in each rank's dropped last batch."""

import lightning as L
from torch.utils.data import DataLoader


class SpeechData(L.LightningDataModule):
    def __init__(self, train_set=None, val_set=None, batch_size=32, drop_last=True):
        super().__init__()
        self.train_set, self.val_set = train_set, val_set
        self.batch_size = batch_size
        self.drop_last = drop_last

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, self.batch_size, drop_last=self.drop_last)
