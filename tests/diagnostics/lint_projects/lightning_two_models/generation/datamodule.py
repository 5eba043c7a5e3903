# The generator's validation loader names no sampler: Lightning pads it under DDP.
import pytorch_lightning as pl
from torch.utils.data import DataLoader


class GenerationDataModule(pl.LightningDataModule):
    def __init__(self, train_set, val_set):
        super().__init__()
        self.train_set, self.val_set = train_set, val_set

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=8, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=8, shuffle=False)  # expect: FS109
