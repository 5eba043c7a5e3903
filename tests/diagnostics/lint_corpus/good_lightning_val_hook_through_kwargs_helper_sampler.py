# The data module's validation hook hands its helper a sampler of its own (an exact one):
# the keywords spread into DataLoader hold it, so Lightning keeps it and pads nothing;
# the losses are synced over the ranks of exact shares.
import pytorch_lightning as pl
from torch.utils.data import DataLoader

from fairshard import DistributedEvalSampler


class ComplexDataModule(pl.LightningDataModule):
    def __init__(self, train_set, val_set, batch_size=32):
        super().__init__()
        self.train_set = train_set
        self.val_set = val_set
        self.batch_size = batch_size

    @staticmethod
    def dataloader(dataset, **kwargs):
        return DataLoader(dataset, **kwargs)

    def train_dataloader(self):
        return self.dataloader(self.train_set, batch_size=self.batch_size, shuffle=True)

    def val_dataloader(self):
        return self.dataloader(
            self.val_set, batch_size=self.batch_size, sampler=DistributedEvalSampler(self.val_set)
        )


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
