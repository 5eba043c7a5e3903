"""CPU training with no device count: Lightning runs one process, nothing is padded."""

import lightning as L
import torch
from torch.utils.data import DataLoader


class Data(L.LightningDataModule):
    def val_dataloader(self):
        return DataLoader(torch.randn(30, 4), batch_size=8)


class Net(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)

    def validation_step(self, batch, batch_idx):
        self.log("val", self.net(batch).mean(), sync_dist=True)


if __name__ == "__main__":
    L.Trainer(accelerator="cpu", max_epochs=3).fit(Net(), datamodule=Data())
