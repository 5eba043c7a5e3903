"""Fine-tuning with its own data module, on the devices its settings give (one by default)."""

import argparse
from typing import Any

import lightning as L
from torch.utils.data import DataLoader

DEFAULTS: dict[str, Any] = {"devices": 1, "lr": 1e-3}


class EmotionData(L.LightningDataModule):
    def __init__(self, train_set, val_set):
        super().__init__()
        self.train_set, self.val_set = train_set, val_set

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=32, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=32)


class Classifier(L.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def training_step(self, batch, batch_idx):
        return self.net(batch[0]).mean()

    def validation_step(self, batch, batch_idx):
        accuracy = (self.net(batch[0]).argmax(-1) == batch[1]).float().mean()
        self.log("val_acc", accuracy, sync_dist=True)


def main(net, train_set, val_set):
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", type=int, default=DEFAULTS["devices"])
    parser.add_argument("--lr", type=float, default=DEFAULTS["lr"])
    args = parser.parse_args()
    cfg = {"devices": args.devices, "lr": args.lr}
    trainer = L.Trainer(accelerator="gpu", devices=cfg["devices"], max_epochs=20)
    trainer.fit(Classifier(net), datamodule=EmotionData(train_set, val_set))


if __name__ == "__main__":
    main(None, None, None)
