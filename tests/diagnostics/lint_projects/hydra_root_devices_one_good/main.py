"""A Hydra entry point: the trainer's device count is the composed config's top-level key."""

import hydra
import lightning as L
import torch
from torch.utils.data import DataLoader, random_split


class PointClouds(L.LightningDataModule):
    def setup(self, stage=None):
        self.train_set, self.val_set = random_split(torch.randn(100, 3), [90, 10])

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=8, shuffle=True)


class Encoder(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(3, 1)

    def training_step(self, batch, batch_idx):
        return self.net(batch).sum()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())


@hydra.main(version_base=None, config_path="conf", config_name="config")
def main(cfg):
    trainer = L.Trainer(accelerator=cfg.accelerator, devices=cfg.devices, strategy=cfg.strategy)
    trainer.fit(Encoder(), datamodule=PointClouds())


if __name__ == "__main__":
    main()
