"""One GPU when there is one, else the CPU: a single process either way, nothing padded."""

import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader


class Classifier(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 2)

    def training_step(self, batch, batch_idx):
        return self.net(batch).sum()

    def validation_step(self, batch, batch_idx):
        self.log("val_loss", self.net(batch).mean(), sync_dist=True)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())


if __name__ == "__main__":
    on_gpu = torch.cuda.is_available()
    train = DataLoader(torch.randn(64, 4), batch_size=8, shuffle=True)
    val = DataLoader(torch.randn(30, 4), batch_size=8)
    trainer = pl.Trainer(gpus=1 if on_gpu else None, max_epochs=3)
    trainer.fit(Classifier(), train, val)
