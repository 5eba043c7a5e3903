"""Two data modules; each classifier run hands one to a trainer through a helper's parameter."""

import lightning as L
import torch
from torch.utils.data import DataLoader


class LiarData(L.LightningDataModule):
    def train_dataloader(self):
        return DataLoader(torch.randn(64, 4), batch_size=8, shuffle=True)

    def val_dataloader(self):
        return DataLoader(torch.randn(30, 4), batch_size=8)


class NewsData(L.LightningDataModule):
    def train_dataloader(self):
        return DataLoader(torch.randn(64, 4), batch_size=8, shuffle=True)

    def val_dataloader(self):
        return DataLoader(torch.randn(30, 4), batch_size=8)
