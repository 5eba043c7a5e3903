"""Builds its loaders eagerly or lazily; every caller asks for the eager ones."""

import argparse

import lightning as L
from model import Classifier
from torch.utils.data import DataLoader


def get_loaders(train, test, early_loading=False):
    if early_loading:
        train_loader = DataLoader(train, batch_size=None, shuffle=True)
        test_loader = DataLoader(test, batch_size=None)  # expect: FS109
    else:
        train_loader = DataLoader(list(train), batch_size=None, shuffle=True)
        test_loader = DataLoader(list(test), batch_size=None)
    return train_loader, test_loader


def main(train, test):
    parser = argparse.ArgumentParser()
    parser.add_argument("--num-gpus", type=int, default=1)
    args = parser.parse_args()
    train_loader, test_loader = get_loaders(train, test, early_loading=True)
    trainer = L.Trainer(devices=args.num_gpus, strategy="ddp")
    trainer.fit(Classifier(), train_loader, test_loader)
