"""A model that syncs its test metric over the ranks."""

import lightning as L
import torch


class Proto(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        return self.net(batch).sum()

    def test_step(self, batch, batch_idx):
        self.log("test_mae", self.net(batch).abs().mean(), sync_dist=True)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())
