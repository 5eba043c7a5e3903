"""A data module's validation hook returns its loader; an older training loader is
still written below the return, so it is never built."""

import lightning as L
from torch.utils.data import DataLoader


class Molecules(L.LightningDataModule):
    def __init__(self, train_set, val_set):
        super().__init__()
        self.train_set, self.val_set = train_set, val_set

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=32, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=64, drop_last=True)

        loader = DataLoader(self.train_set, batch_size=64)
        return loader


class Scorer(L.LightningModule):
    def validation_step(self, batch, batch_idx):
        self.log("val_loss", self(batch).mean(), sync_dist=True)
