"""Attaches its loaders to the model as the loader hooks, then fits on every GPU."""

import lightning as L
import torch
from model import Classifier
from torch.utils.data import DataLoader


def main(train_set, val_set, test_set):
    train_loader = DataLoader(train_set, batch_size=16, shuffle=True)
    val_loader = DataLoader(val_set, batch_size=16, shuffle=False)  # expect: FS109
    model = Classifier()
    setattr(model, "train_dataloader", lambda: train_loader)  # noqa: B010 - the shape under test
    setattr(model, "val_dataloader", lambda: val_loader)  # noqa: B010 - the shape under test
    model.test_dataloader = lambda: DataLoader(test_set, batch_size=16)  # expect: FS109
    trainer = L.Trainer(devices=torch.cuda.device_count(), strategy="ddp")
    trainer.fit(model)
    trainer.test(model)
