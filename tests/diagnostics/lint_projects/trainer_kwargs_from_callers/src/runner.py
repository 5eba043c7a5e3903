"""The experiments' runner: the trainer takes whatever device count its callers spread in."""

import lightning as L
import torch
from torch.utils.data import DataLoader


class WindowDataset(torch.utils.data.Dataset):
    def __len__(self):
        return 30

    def __getitem__(self, index):
        return torch.randn(4)


class Data(L.LightningDataModule):
    def val_dataloader(self):
        return DataLoader(WindowDataset(), batch_size=8)  # expect: FS109


class Net(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)

    def validation_step(self, batch, batch_idx):
        self.log("val", self.net(batch).mean(), sync_dist=True)


def run_cv_experiment(dataset_cls, folds, trainer_kwargs=None):
    for _ in range(folds):
        extra_kwargs = dict(trainer_kwargs or {})
        callbacks = extra_kwargs.pop("callbacks", [])
        trainer = L.Trainer(callbacks=callbacks, **extra_kwargs)
        trainer.fit(Net(), datamodule=Data())
