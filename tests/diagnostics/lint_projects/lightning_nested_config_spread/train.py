"""Trains with the trainer arguments of the chosen config's training block: one config
gives four devices, so Lightning pads the validation loader and the synced loss counts
the repeats."""

import argparse

import lightning as L
import torch
import yaml
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


def main(config):
    trainer_config = config["training"]["trainer_args"]
    trainer_config["check_val_every_n_epoch"] = 1
    trainer = L.Trainer(logger=None, **trainer_config)
    trainer.fit(Net(), datamodule=Data())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/qm9.yaml")
    with open(parser.parse_args().config) as f:
        main(yaml.safe_load(f))
