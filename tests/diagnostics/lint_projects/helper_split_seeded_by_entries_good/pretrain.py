"""Seeds every process alike before the data module splits: one split on every rank."""

import lightning as L
import torch
from datamodule import PretrainData


class Net(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        return self.net(batch).sum()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())


if __name__ == "__main__":
    L.seed_everything(1013, workers=True)
    trainer = L.Trainer(devices=4, strategy="ddp")
    trainer.fit(Net(), datamodule=PretrainData(torch.randn(100, 4)))
