# The data module's hooks build their loaders through a static helper that spreads the
# hook's keywords into DataLoader: no sampler among them, so Lightning pads the
# validation loader on the three devices, and the losses are synced over the ranks.
import pytorch_lightning as pl
from torch.utils.data import DataLoader


class ComplexDataModule(pl.LightningDataModule):
    def __init__(self, train_set, val_set, batch_size=32):
        super().__init__()
        self.train_set = train_set
        self.val_set = val_set
        self.batch_size = batch_size

    @staticmethod
    def dataloader(dataset, **kwargs):
        return DataLoader(dataset, **kwargs)  # expect: FS109

    def train_dataloader(self):
        return self.dataloader(self.train_set, batch_size=self.batch_size, shuffle=True)

    def val_dataloader(self):
        return self.dataloader(self.val_set, batch_size=self.batch_size, shuffle=True)


class Model(pl.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def training_step(self, batch, batch_idx):
        return self.net(batch[0]).sub(batch[1]).pow(2).mean()

    def validation_step(self, batch, batch_idx):
        loss = self.net(batch[0]).sub(batch[1]).pow(2).mean()
        self.log("val_loss", loss, sync_dist=True)


def main(net, train_set, val_set):
    trainer = pl.Trainer(accelerator="gpu", devices=[0, 1, 2], strategy="ddp")
    trainer.fit(Model(net), datamodule=ComplexDataModule(train_set, val_set))
