# The data module's validation loader names no sampler: Lightning pads it under DDP.
from pytorch_lightning import LightningDataModule
from torch.utils.data import DataLoader


class TrajectoryDataModule(LightningDataModule):
    def __init__(self, train_set, val_set):
        super().__init__()
        self.train_set, self.val_set = train_set, val_set

    @classmethod
    def from_sets(cls, train_set, val_set):
        return cls(train_set, val_set)

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=32, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=32, shuffle=False)  # expect: FS109
