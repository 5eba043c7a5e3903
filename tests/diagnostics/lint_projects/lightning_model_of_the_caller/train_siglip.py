"""Trains the model whose validation is synced, on every visible GPU: Lightning pads the
plain validation loader and the synced loss counts the repeats."""

import lightning as L
from models.vqgan import VQModel
from torch.utils.data import DataLoader


def train(model: L.LightningModule, train_set, test_set):
    trainer = L.Trainer(accelerator="gpu", max_epochs=1)
    train_dl = DataLoader(train_set, batch_size=16, shuffle=True)
    test_dl = DataLoader(test_set, batch_size=16)  # expect: FS109
    trainer.fit(model, train_dataloaders=train_dl, val_dataloaders=test_dl)


if __name__ == "__main__":
    model = VQModel(net=None).cuda()
    train(model, [], [])
