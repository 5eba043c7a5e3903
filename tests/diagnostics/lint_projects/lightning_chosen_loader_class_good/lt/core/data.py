import pytorch_lightning as pl
from torch.utils.data import DataLoader, IterableDataset


class IterableDataLoader(DataLoader):
    """A loader over a streaming dataset: Lightning gives it no sampler."""


class TransformerDataModule(pl.LightningDataModule):
    def __init__(self, ds, batch_size=8, streaming=False):
        super().__init__()
        self.ds = ds
        self.batch_size = batch_size
        self.streaming = streaming or isinstance(ds["train"], IterableDataset)

    def train_dataloader(self):
        cls = DataLoader if not self.streaming else IterableDataLoader
        return cls(self.ds["train"], batch_size=self.batch_size)

    def val_dataloader(self):
        cls = DataLoader if not self.streaming else IterableDataLoader
        return cls(self.ds["validation"], batch_size=self.batch_size)
