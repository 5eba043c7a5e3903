"""Fits on four devices, then hands the trainer the data module's test loader by hand."""

import lightning as L
from datamodule import BrainData
from model import Proto

if __name__ == "__main__":
    dataset: BrainData = BrainData()
    model = Proto()
    trainer = L.Trainer(devices=4, strategy="ddp", max_epochs=3)
    trainer.fit(model, dataset)
    trainer.test(model, dataloaders=dataset.test_dataloader())  # expect: FS109
