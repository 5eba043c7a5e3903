"""The script builds the subclass, whose validation loader drops its last batch; the base
class's own val_dataloader never runs."""

import pytorch_lightning as pl
from vocos.dataset import VocosDropLastDataModule
from vocos.experiment import VocosExp


def main(model, train_set, val_set):
    trainer = pl.Trainer(accelerator="gpu", devices=4, strategy="ddp", max_epochs=10)
    trainer.fit(VocosExp(model), datamodule=VocosDropLastDataModule(train_set, val_set))


if __name__ == "__main__":
    main(None, None, None)
