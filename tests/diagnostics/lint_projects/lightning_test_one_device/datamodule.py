# Validation and test loaders name no sampler: Lightning pads them when it runs them on DDP.
import pytorch_lightning as pl
from torch.utils.data import DataLoader


class ExprDatamodule(pl.LightningDataModule):
    def __init__(self, train_set, val_set, test_set):
        super().__init__()
        self.train_set, self.val_set, self.test_set = train_set, val_set, test_set

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=8, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=1, shuffle=False)  # expect: FS109

    def test_dataloader(self):
        return DataLoader(self.test_set, batch_size=1, shuffle=False)
