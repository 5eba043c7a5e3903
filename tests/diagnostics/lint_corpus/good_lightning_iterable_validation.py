# The validation set is iterable-style: Lightning puts no DistributedSampler into a
# loader over an IterableDataset, so no rank repeats a sample, whatever is synced.
import lightning as L
import torch
from torch.utils.data import DataLoader, IterableDataset


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(torch.randn(self.n, 4))


class Data(L.LightningDataModule):
    def setup(self, stage=None):
        self.val_ds = Stream(30)

    def val_dataloader(self):
        return DataLoader(self.val_ds, batch_size=8)


class Net(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)

    def validation_step(self, batch, batch_idx):
        self.log("val", self.net(batch).mean(), sync_dist=True)


if __name__ == "__main__":
    L.Trainer(devices=4, strategy="ddp").fit(Net(), datamodule=Data())
