"""The model's loader hooks return what the data package builds; the Dice is synced."""

import pytorch_lightning as pl
from data import get_train_dataloader, get_val_dataloader


class Segmenter(pl.LightningModule):
    def __init__(self, net, train_set, val_set):
        super().__init__()
        self.net, self.train_set, self.val_set = net, train_set, val_set

    def train_dataloader(self):
        return get_train_dataloader(self.train_set)

    def val_dataloader(self):
        return get_val_dataloader(self.val_set)  # expect: FS109

    def validation_step(self, batch, batch_idx):
        self.log("val/dice", self.dice(self.net(batch["image"]), batch["label"]), sync_dist=True)
