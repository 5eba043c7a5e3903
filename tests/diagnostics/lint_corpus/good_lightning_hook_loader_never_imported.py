"""The loader hooks call DataLoader, whose import was commented out: they raise NameError.

The file trains on four devices, but the hooks fail before any loader
exists, so no padded validation is ever combined.
"""

# from torch.utils.data import DataLoader
import lightning.pytorch as pl
import torch
import torch.nn.functional as F


class Model(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 10)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return F.cross_entropy(self.net(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", F.cross_entropy(self.net(x), y), sync_dist=True)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())

    def train_dataloader(self):
        return DataLoader(torch.randn(64, 4), batch_size=16, shuffle=True)  # noqa: F821

    def val_dataloader(self):
        return DataLoader(torch.randn(30, 4), batch_size=16)  # noqa: F821


if __name__ == "__main__":
    pl.Trainer(devices=4, strategy="ddp", max_epochs=2).fit(Model())
