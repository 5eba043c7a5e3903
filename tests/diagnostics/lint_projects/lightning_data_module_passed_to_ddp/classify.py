"""Fits the chosen data module on one device, through a helper that takes it as a parameter."""

import argparse

import lightning as L
from datamodules import LiarData, NewsData
from models import Classifier


def train_classifier(model, datamodule: L.LightningDataModule, max_epochs):
    trainer = L.Trainer(max_epochs=max_epochs, devices=1)
    trainer.fit(model=model, datamodule=datamodule)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", default="liar")
    args = parser.parse_args()
    if args.dataset == "liar":
        datamodule = LiarData()
    elif args.dataset == "news":
        datamodule = NewsData()
    else:
        raise ValueError(f"--dataset {args.dataset!r}: choose 'liar' or 'news'")
    train_classifier(Classifier(), datamodule, 30)
