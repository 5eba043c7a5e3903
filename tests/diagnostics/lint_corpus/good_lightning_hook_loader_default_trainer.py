# A Lightning data module's hook returns a shuffling loader; the Trainer keeps its
# default and puts a DistributedSampler in it (and sets its epoch).
import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader


class TextDataModule(pl.LightningDataModule):
    def __init__(self, dataset, batch_size):
        super().__init__()
        self.dataset, self.batch_size = dataset, batch_size

    def prepare_data(self):
        if torch.distributed.is_initialized() and torch.distributed.get_rank() == 0:
            torch.distributed.barrier()

    def train_dataloader(self):
        return DataLoader(self.dataset, batch_size=self.batch_size, shuffle=True)


def main(model, dataset):
    trainer = pl.Trainer(devices=8, strategy="ddp")
    trainer.fit(model, datamodule=TextDataModule(dataset, 32))
