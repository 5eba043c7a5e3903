# The data module is picked from a registry by the configuration's name.
import pytorch_lightning as pl
from datamodule import KittiDataModule
from module import GenericModule

data_modules = {"kitti": KittiDataModule}


def train(cfg, net):
    data = data_modules[cfg["name"]](cfg["sets"], cfg["batch_size"])
    trainer = pl.Trainer(devices=3, strategy="ddp")
    trainer.fit(GenericModule(net), data)
