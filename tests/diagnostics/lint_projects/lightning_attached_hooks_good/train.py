"""Attaches its loaders to the model as the loader hooks, then fits on one GPU."""

import lightning as L
from model import Classifier
from torch.utils.data import DataLoader


def main(train_set, val_set, test_set):
    train_loader = DataLoader(train_set, batch_size=16, shuffle=True)
    val_loader = DataLoader(val_set, batch_size=16, shuffle=False)
    model = Classifier()
    setattr(model, "train_dataloader", lambda: train_loader)  # noqa: B010 - the shape under test
    setattr(model, "val_dataloader", lambda: val_loader)  # noqa: B010 - the shape under test
    # a loader, not a function returning one: not a hook Lightning can call
    model.test_dataloader = DataLoader(test_set, batch_size=16)
    trainer = L.Trainer(devices=1)
    trainer.fit(model)
