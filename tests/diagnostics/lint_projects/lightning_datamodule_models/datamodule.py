"""A data module for each model: only the model run with a data module reads its loaders.

BaseData's validation loader is padded under DDP and BaseLine syncs its
validation loss; FluxData's goes only to MultiModal, which never validates.
"""

import lightning as L
import torch
from torch.utils.data import DataLoader


class BaseData(L.LightningDataModule):
    def train_dataloader(self):
        return DataLoader(torch.randn(64, 4), batch_size=8, shuffle=True)

    def val_dataloader(self):
        return DataLoader(torch.randn(30, 4), batch_size=8)  # expect: FS109


class FluxData(L.LightningDataModule):
    def train_dataloader(self):
        return DataLoader(torch.randn(64, 4), batch_size=8, shuffle=True)

    def val_dataloader(self):
        return DataLoader(torch.randn(30, 4), batch_size=8)
