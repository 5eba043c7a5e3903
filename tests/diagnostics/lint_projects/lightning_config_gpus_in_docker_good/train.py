"""Trains on the GPUs the config lists, or one device when it lists none."""

import lightning as L
import torch
import yaml
from torch.utils.data import DataLoader


class Steg(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        return self.net(batch).sum()

    def validation_step(self, batch, batch_idx):
        self.log("val/loss", self.net(batch).mean(), sync_dist=True)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())

    def train_dataloader(self):
        return DataLoader(torch.randn(64, 4), batch_size=8, shuffle=True)

    def val_dataloader(self):
        return DataLoader(torch.randn(30, 4), batch_size=8)


def main(args):
    trainer = L.Trainer(
        devices=args.training.gpus if args.training.gpus else 1,
        accelerator="gpu" if args.training.gpus else "cpu",
        max_epochs=args.training.epochs,
    )
    trainer.fit(Steg())


if __name__ == "__main__":
    with open("cfg/default.yaml") as f:
        main(yaml.safe_load(f))
