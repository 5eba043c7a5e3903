# torch_geometric's LightningDataset built directly with a validation set: its
# val_dataloader names no sampler, so on four devices Lightning pads it.
import pytorch_lightning as pl
from torch_geometric.data.lightning import LightningDataset


def main(model, train_set, val_set):
    data = LightningDataset(train_set, val_set, batch_size=4)  # expect: FS109
    trainer = pl.Trainer(devices=4, strategy="ddp")
    trainer.fit(model, datamodule=data)
