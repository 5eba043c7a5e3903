"""Runs the multimodal model on four processes: it has no validation_step."""

import lightning as L
from datamodule import FluxData
from models import MultiModal

if __name__ == "__main__":
    model = MultiModal()
    data = FluxData()
    trainer = L.Trainer(devices=4, strategy="ddp")
    trainer.fit(model, datamodule=data)
