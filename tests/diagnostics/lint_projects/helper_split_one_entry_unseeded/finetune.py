"""Another entry: it splits through the helper on four processes and seeds nothing."""

import lightning as L
import torch
from torch.utils.data import DataLoader
from utils import split_dataset


class Head(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        return self.net(batch).sum()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())


if __name__ == "__main__":
    train_set, _ = split_dataset(torch.randn(100, 4), 0.8)
    trainer = L.Trainer(devices=4, strategy="ddp")
    trainer.fit(Head(), DataLoader(train_set, batch_size=8, shuffle=True))
