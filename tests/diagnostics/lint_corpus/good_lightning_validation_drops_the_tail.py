# The validation loader names no sampler, so under DDP Lightning puts in a padded
# DistributedSampler; but its options drop the last partial batch of every rank,
# where the repeats are (a share that fills whole batches aside).
import lightning as L
import torch
from torch.utils.data import DataLoader


class Regressor(L.LightningModule):
    def __init__(self, model, train_set, val_set, batch_size):
        super().__init__()
        self.model, self.train_set, self.val_set = model, train_set, val_set
        self.batch_size = batch_size

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True)

    def val_dataloader(self):
        params = {"batch_size": self.batch_size, "drop_last": True, "shuffle": False}
        return DataLoader(self.val_set, **params)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.model(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_mae", (self.model(x) - y).abs().mean(), sync_dist=True)


def main(model, train_set, val_set):
    trainer = L.Trainer(devices=8, strategy="ddp")
    trainer.fit(Regressor(model, train_set, val_set, batch_size=128))
