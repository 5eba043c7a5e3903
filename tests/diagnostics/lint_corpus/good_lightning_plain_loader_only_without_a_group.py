# The data module builds an exact sampler when a process group exists and a plain loader
# only in the other arm: under DDP the hook runs inside the group, so Lightning never
# sees the plain loader there, and nothing is padded.
import pytorch_lightning as pl
import torch.distributed as dist
from torch.utils.data import DataLoader

from fairshard import DistributedEvalSampler


class PairData(pl.LightningDataModule):
    def __init__(self, val_set, batch_size):
        super().__init__()
        self.val_set, self.batch_size = val_set, batch_size

    def val_dataloader(self):
        if dist.is_initialized():
            sampler = DistributedEvalSampler(self.val_set)
            return DataLoader(self.val_set, batch_size=self.batch_size, sampler=sampler)
        else:
            return DataLoader(self.val_set, batch_size=self.batch_size)


class Scorer(pl.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def validation_step(self, batch, batch_idx):
        loss = self.net(batch[0]).sub(batch[1]).pow(2).mean()
        self.log("val_loss", loss, sync_dist=True)


def main(net, val_set):
    trainer = pl.Trainer(accelerator="gpu", devices=4, strategy="ddp")
    trainer.validate(Scorer(net), datamodule=PairData(val_set, 32))
