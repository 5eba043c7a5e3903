"""Runs on one device through SingleDeviceStrategy: Lightning puts in no sampler."""

import lightning as L
from lightning.pytorch.strategies import SingleDeviceStrategy
from torch.utils.data import DataLoader


class Regressor(L.LightningModule):
    def validation_step(self, batch, batch_idx):
        self.log("val/loss", self.loss(batch), sync_dist=True)


def main(train_set, val_set, device):
    strategy = SingleDeviceStrategy(device=device)
    trainer = L.Trainer(accelerator="gpu", strategy=strategy)
    val_loader = DataLoader(val_set, batch_size=16)
    trainer.fit(Regressor(), DataLoader(train_set, shuffle=True), val_loader)
