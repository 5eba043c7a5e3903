"""Trains on four GPUs with the data options of the config."""

import lightning as L
import yaml
from datamodule import SpeechData
from model import Net

if __name__ == "__main__":
    with open("configs/base.yaml") as f:
        cfg = yaml.safe_load(f)
    datamodule = SpeechData(**cfg["data"])
    trainer = L.Trainer(accelerator="gpu", devices=4, strategy="ddp")
    trainer.fit(Net(None), datamodule=datamodule)
