"""A data module whose evaluation loaders name no sampler."""

import lightning as L
import torch
from torch.utils.data import DataLoader


class MoleculeData(L.LightningDataModule):
    def train_dataloader(self):
        return DataLoader(torch.randn(64, 4), batch_size=8, shuffle=True)

    def test_dataloader(self):
        return DataLoader(torch.randn(30, 4), batch_size=8)  # expect: FS109
