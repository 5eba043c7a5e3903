"""Trains the other model, with no validation loader."""

import lightning as L
from models.vqgan import VQModel
from torch.utils.data import DataLoader

if __name__ == "__main__":
    trainer = L.Trainer(accelerator="gpu", max_epochs=1)
    trainer.fit(VQModel(net=None), DataLoader([], batch_size=16, shuffle=True))
