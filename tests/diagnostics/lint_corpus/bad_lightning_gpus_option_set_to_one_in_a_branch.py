# The script sets args.gpus = 1 only for a debug run; the default run takes the --gpus
# option's four devices, and the synced accuracy counts the padded repeats twice.
import argparse

import lightning as L
import torch
from torch.utils.data import DataLoader


class Classifier(L.LightningModule):
    def __init__(self, model, train_set, val_set):
        super().__init__()
        self.model, self.train_set, self.val_set = model, train_set, val_set

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=32, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=64)  # expect: FS109

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.model(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        accuracy = (self.model(x).argmax(-1) == y).float().mean()
        self.log("val_accuracy", accuracy, sync_dist=True)


def main(model, train_set, val_set):
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", type=int, default=4)
    parser.add_argument("--debug", action="store_true")
    args = parser.parse_args()
    if args.debug:
        args.gpus = 1
    trainer = L.Trainer(gpus=args.gpus, strategy="ddp")
    trainer.fit(Classifier(model, train_set, val_set))
