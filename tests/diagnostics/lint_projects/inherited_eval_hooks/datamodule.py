# The data module takes its loader hooks from torch_geometric's LightningDataset, whose
# loaders name no sampler: under DDP Lightning pads the validation loader.
import pytorch_lightning as pl
from torch_geometric.data.lightning import LightningDataset


class GraphDataModule(LightningDataset):  # expect: FS109
    def __init__(self, train_set, val_set, test_set, batch_size):
        super().__init__(train_set, val_set, test_set, batch_size=batch_size)

    def node_counts(self):
        return [g.num_nodes for g in self.train_dataset]


def main(model, train_set, val_set, test_set, gpus):
    trainer = pl.Trainer(devices=gpus, strategy="ddp")
    trainer.fit(model, datamodule=GraphDataModule(train_set, val_set, test_set, 32))
