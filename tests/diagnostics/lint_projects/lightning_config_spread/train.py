"""The same, with a config of four devices: Lightning pads the validation loader."""

import lightning as L
import torch
from omegaconf import OmegaConf
from torch.utils.data import DataLoader


class Data(L.LightningDataModule):
    def val_dataloader(self):
        return DataLoader(torch.randn(30, 4), batch_size=8)  # expect: FS109


class Net(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)

    def validation_step(self, batch, batch_idx):
        self.log("val", self.net(batch).mean(), sync_dist=True)


if __name__ == "__main__":
    cfg = OmegaConf.load("configs/default.yaml")
    L.Trainer(**cfg.trainer, max_epochs=3).fit(Net(), datamodule=Data())
