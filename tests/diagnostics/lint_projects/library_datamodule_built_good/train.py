# The same data module on one device: Lightning puts in no sampler, nothing is padded.
import pytorch_lightning as pl
from torch_geometric.data.lightning import LightningDataset


def main(model, train_set, val_set):
    data = LightningDataset(train_dataset=train_set, val_dataset=val_set, batch_size=4)
    trainer = pl.Trainer(devices=1)
    trainer.fit(model, datamodule=data)
