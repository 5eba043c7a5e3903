"""Prediction on as many devices as the caller asks for (Lightning shards it, no repeats)."""

import lightning as L
from model import PeptideModel
from torch.utils.data import DataLoader


def predict(net, dataset, num_devices):
    trainer = L.Trainer(accelerator="gpu", devices=num_devices)
    predict_loader = DataLoader(dataset, batch_size=64)
    return trainer.predict(PeptideModel(net), dataloaders=predict_loader)
