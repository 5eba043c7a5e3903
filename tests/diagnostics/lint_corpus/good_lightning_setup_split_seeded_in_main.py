"""The module's setup splits with random_split; the script seeds every process before fitting.

Lightning calls setup from trainer.fit, after pl.seed_everything in the
__main__ block (rerun in each process): every rank draws the same split.
"""

import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, random_split


class Classifier(pl.LightningModule):
    def __init__(self, data):
        super().__init__()
        self.data = data
        self.net = torch.nn.Linear(4, 1)

    def setup(self, stage):
        self.train_data, self.valid_data = random_split(self.data, [90, 10])

    def train_dataloader(self):
        return DataLoader(self.train_data, batch_size=8, shuffle=True)

    def training_step(self, batch, batch_idx):
        return self.net(batch).sum()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())


if __name__ == "__main__":
    pl.seed_everything(1020)
    trainer = pl.Trainer(devices=4, strategy="ddp", max_epochs=2)
    trainer.fit(Classifier(torch.randn(100, 4)))
