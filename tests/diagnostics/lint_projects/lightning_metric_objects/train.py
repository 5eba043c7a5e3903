# Training, and the evaluation script's own loader handed to trainer.validate.
import pytorch_lightning as pl
from datamodule import TrajectoryDataModule
from model import Forecaster
from torch.utils.data import DataLoader


def train(net, train_set, val_set, gpus):
    datamodule = TrajectoryDataModule.from_sets(train_set, val_set)
    trainer = pl.Trainer(gpus=gpus, strategy="ddp")
    trainer.fit(Forecaster(net), datamodule)


def evaluate(net, val_set, gpus):
    trainer = pl.Trainer(gpus=gpus, strategy="ddp")
    loader = DataLoader(val_set, batch_size=32, shuffle=False)  # expect: FS109
    trainer.validate(Forecaster(net), loader)
