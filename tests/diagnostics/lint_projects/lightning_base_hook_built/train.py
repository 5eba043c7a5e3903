"""The script builds the base class: its validation loader is padded on four GPUs and the
loss is synced."""

import pytorch_lightning as pl
from vocos.dataset import VocosDataModule
from vocos.experiment import VocosExp


def main(model, train_set, val_set):
    trainer = pl.Trainer(accelerator="gpu", devices=4, strategy="ddp", max_epochs=10)
    trainer.fit(VocosExp(model), datamodule=VocosDataModule(train_set, val_set))


if __name__ == "__main__":
    main(None, None, None)
