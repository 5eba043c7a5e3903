# Validation metrics are synced over the ranks, but every trainer of the tree runs one device.
import lightning.pytorch as pl
import torch
from torch.utils.data import DataLoader


class Model(pl.LightningModule):
    def __init__(self, net, train_set, val_set):
        super().__init__()
        self.net, self.train_set, self.val_set = net, train_set, val_set

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.net(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_acc", (self.net(x).argmax(1) == y).float().mean(), sync_dist=True)

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=32, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=32)
