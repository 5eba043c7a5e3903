"""The trainer's devices come from a nested config block; one shipped config asks for four."""

import sys

import lightning as L
import yaml
from torch.utils.data import DataLoader


class Tagger(L.LightningModule):
    def __init__(self, net, train_set, val_set):
        super().__init__()
        self.net, self.train_set, self.val_set = net, train_set, val_set

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=8, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=8)  # expect: FS109

    def validation_step(self, batch, batch_idx):
        self.log("val/loss", self.net(batch).mean(), sync_dist=True)


def main(path):
    with open(path) as handle:
        config = yaml.safe_load(handle)
    model = Tagger(config["net"], config["data"]["train"], config["data"]["val"])
    trainer = L.Trainer(
        max_epochs=config["training"]["max_epochs"],
        devices=config["training"].get("devices", 1),
    )
    trainer.fit(model)


if __name__ == "__main__":
    main(sys.argv[1])
