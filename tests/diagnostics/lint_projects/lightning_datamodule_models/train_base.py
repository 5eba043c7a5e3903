"""Runs the baseline on four processes."""

import lightning as L
from datamodule import BaseData
from models import BaseLine

if __name__ == "__main__":
    trainer = L.Trainer(devices=4, strategy="ddp")
    trainer.fit(BaseLine(), datamodule=BaseData())
