# The same validation set, map-style: Lightning pads it on four processes, and the
# synced loss counts the repeats.
import lightning as L
import torch
from torch.utils.data import DataLoader, Dataset


class Rows(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.randn(4)


class Data(L.LightningDataModule):
    def setup(self, stage=None):
        self.val_ds = Rows(30)

    def val_dataloader(self):
        return DataLoader(self.val_ds, batch_size=8)  # expect: FS109


class Net(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)

    def validation_step(self, batch, batch_idx):
        self.log("val", self.net(batch).mean(), sync_dist=True)


if __name__ == "__main__":
    L.Trainer(devices=4, strategy="ddp").fit(Net(), datamodule=Data())
