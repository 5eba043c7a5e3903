"""The same model, with DataLoader imported inside each hook: the validation loader is padded."""

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
        from torch.utils.data import DataLoader

        return DataLoader(torch.randn(64, 4), batch_size=16, shuffle=True)

    def val_dataloader(self):
        from torch.utils.data import DataLoader

        return DataLoader(torch.randn(30, 4), batch_size=16)  # expect: FS109


if __name__ == "__main__":
    pl.Trainer(devices=4, strategy="ddp", max_epochs=2).fit(Model())
