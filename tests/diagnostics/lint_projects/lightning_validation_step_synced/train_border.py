"""Trains the border model on every visible GPU and validates it: Lightning pads the
plain validation loader, and the synced loss counts the repeats."""

import lightning as L
from torch.utils.data import DataLoader


class BorderModel(L.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def training_step(self, batch, batch_idx):
        loss = self.net(batch[0]).sub(batch[1]).pow(2).mean()
        self.log("train/loss", loss, sync_dist=True)
        return loss

    def validation_step(self, batch, batch_idx):
        loss = self.net(batch[0]).sub(batch[1]).pow(2).mean()
        self.log("val/loss", loss, sync_dist=True)


if __name__ == "__main__":
    train_dl = DataLoader([], batch_size=16, shuffle=True)
    val_dl = DataLoader([], batch_size=1)  # expect: FS109
    trainer = L.Trainer(accelerator="gpu", max_epochs=1, strategy="ddp")
    trainer.fit(BorderModel(net=None), train_dataloaders=train_dl, val_dataloaders=val_dl)
