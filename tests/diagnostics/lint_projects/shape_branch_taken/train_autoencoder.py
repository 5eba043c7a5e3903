"""Builds the loaders for one batch size or a list of them; the caller passes one
number, so the plain validation loader of the else branch is built, Lightning pads it,
and the synced loss counts the repeats."""

import lightning as L
import torch
from torch.utils.data import DataLoader

from fairshard import DistributedEvalSampler


class AutoEncoder(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 4)

    def training_step(self, batch, batch_idx):
        return (self.net(batch) - batch).pow(2).mean()

    def validation_step(self, batch, batch_idx):
        self.log("val_loss", (self.net(batch) - batch).pow(2).mean(), sync_dist=True)


def make_loaders(train_data, val_data, batch_size):
    if isinstance(batch_size, (list, tuple)) and len(batch_size) > 0:
        train_loader = DataLoader(train_data, batch_size=batch_size[0], shuffle=True)
        val_loader = DataLoader(
            val_data, batch_size=batch_size[0], sampler=DistributedEvalSampler(val_data)
        )
    else:
        train_loader = DataLoader(train_data, batch_size=batch_size, shuffle=True)
        val_loader = DataLoader(val_data, batch_size=batch_size)  # expect: FS109
    return train_loader, val_loader


def main(batch_size):
    train_loader, val_loader = make_loaders(torch.randn(64, 4), torch.randn(30, 4), batch_size)
    trainer = L.Trainer(accelerator="gpu", devices=-1, strategy="ddp", max_epochs=3)
    trainer.fit(AutoEncoder(), train_loader, val_loader)


if __name__ == "__main__":
    main(16)
