"""Another script: its trainer's device count is a parameter nothing here fixes.

It fits a data module of its own, which has no validation loader: the
classifier script's data modules run only on that script's one device.
"""

import lightning as L
import torch
from models import Classifier
from torch.utils.data import DataLoader


class TransferData(L.LightningDataModule):
    def train_dataloader(self):
        return DataLoader(torch.randn(64, 4), batch_size=8, shuffle=True)


def create_trainer(gpus):
    return L.Trainer(devices=gpus)


def train_model(trainer):
    trainer.fit(model=Classifier(), datamodule=TransferData())


def main(gpus):
    train_model(create_trainer(gpus))
