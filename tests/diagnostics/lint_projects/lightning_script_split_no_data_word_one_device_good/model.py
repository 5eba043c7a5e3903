import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader


class ImageModel(pl.LightningModule):
    def __init__(self, train_paths, val_paths):
        super().__init__()
        self.train_paths, self.val_paths = train_paths, val_paths
        self.net = torch.nn.Linear(4, 2)

    def training_step(self, batch, batch_idx):
        return self.net(batch).sum()

    def train_dataloader(self):
        return DataLoader(self.train_paths, batch_size=8, shuffle=True)
