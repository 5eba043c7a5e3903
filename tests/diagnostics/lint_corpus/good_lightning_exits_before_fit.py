# The script looks at its data and exits before it builds a Trainer: nothing after exit(0)
# runs, so no loader is padded and nothing is combined.
import sys

import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader


class Net(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        return self.net(batch).mean()

    def validation_step(self, batch, batch_idx):
        self.log("val", self.net(batch).mean(), sync_dist=True)


def plot(loader):
    print(sum(len(batch) for batch in loader))


if __name__ == "__main__":
    train = DataLoader([torch.randn(4) for _ in range(64)], batch_size=8, shuffle=True)
    val = DataLoader([torch.randn(4) for _ in range(30)], batch_size=8)
    plot(train)
    sys.exit(0)

    trainer = pl.Trainer(devices=4, strategy="ddp")
    trainer.fit(Net(), train, val)
