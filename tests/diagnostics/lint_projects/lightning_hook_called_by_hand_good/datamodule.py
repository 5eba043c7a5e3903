"""The same data module; its test loader drops the last partial batch, where the padding lands."""

import lightning as L
import torch
from torch.utils.data import DataLoader


class BrainData(L.LightningDataModule):
    def train_dataloader(self):
        return DataLoader(torch.randn(64, 4), batch_size=8, shuffle=True, drop_last=True)

    def test_dataloader(self):
        return DataLoader(torch.randn(30, 4), batch_size=8, shuffle=False, drop_last=True)
