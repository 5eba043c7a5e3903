import pytorch_lightning as pl
from torch.utils.data import DataLoader


class VocosDataModule(pl.LightningDataModule):
    def __init__(self, train_set, val_set, batch_size=16):
        super(VocosDataModule, self).__init__()  # noqa: UP008 (the old spelling names the class)
        self.train_set, self.val_set, self.batch_size = train_set, val_set, batch_size

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=self.batch_size)


class VocosDropLastDataModule(VocosDataModule):
    """Validation in whole batches only: the padded repeats fall in each rank's dropped tail."""

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=self.batch_size, drop_last=True)
