"""A data module no run uses: the training script builds and hands its own loaders."""

import lightning as L
from torch.utils.data import DataLoader


class EventsDataModule(L.LightningDataModule):
    def __init__(self, val_set):
        super().__init__()
        self.val_set = val_set

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=16)
