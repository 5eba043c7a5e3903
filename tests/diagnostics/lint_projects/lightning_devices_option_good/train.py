"""A --devices option that defaults to one GPU, which no shipped command sets."""

import argparse

import lightning as L
from torch.utils.data import DataLoader


class Dehazer(L.LightningModule):
    def __init__(self, net, train_set, val_set):
        super().__init__()
        self.net, self.train_set, self.val_set = net, train_set, val_set

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=4, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=1, shuffle=False)

    def validation_step(self, batch, batch_idx):
        self.log("val/psnr", self.psnr(self.net(batch[0]), batch[1]), sync_dist=True)


def main(net, train_set, val_set):
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", type=int, default=1, help="Number of GPUs to use")
    parser.add_argument("--epochs", type=int, default=100)
    args = parser.parse_args()
    trainer = L.Trainer(accelerator="gpu", devices=args.devices, max_epochs=args.epochs)
    trainer.fit(Dehazer(net, train_set, val_set))
