"""Builds the loaders in a helper and hands them to fit; several devices on request."""

import argparse

import lightning as L
from model import Regressor
from torch.utils.data import DataLoader


def build_dataloaders(train_set, val_set):
    train_loader = DataLoader(train_set, batch_size=16, shuffle=True)
    val_loader = DataLoader(val_set, batch_size=16, shuffle=False)  # expect: FS109
    return train_loader, val_loader


def main(train_set, val_set):
    parser = argparse.ArgumentParser()
    parser.add_argument("--devices", nargs="+", type=int)
    args = parser.parse_args()
    train_loader, val_loader = build_dataloaders(train_set, val_set)
    trainer = L.Trainer(devices=args.devices, strategy="ddp")
    trainer.fit(model=Regressor(), train_dataloaders=train_loader, val_dataloaders=val_loader)
    # bound again after the run, for predict (which Lightning shards without padding)
    val_loader = DataLoader(val_set, batch_size=16, shuffle=False)
    return trainer.predict(Regressor(), val_loader)
