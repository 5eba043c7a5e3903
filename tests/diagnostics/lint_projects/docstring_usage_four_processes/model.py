"""A model that syncs its test loss over the ranks."""

import lightning as L
import torch


class Net(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        return self.net(batch).sum()

    def test_step(self, batch, batch_idx):
        self.log("test_loss", self.net(batch).mean(), sync_dist=True)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())
