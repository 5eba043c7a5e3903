# The Trainer runs the model with the data module, on several GPUs.
import lightning as L
from datamodule import StructureDataModule
from model import StructureModel


def main(net, train_set, val_set):
    data_module = StructureDataModule(train_set, val_set)
    trainer = L.Trainer(devices=4, strategy="ddp")
    trainer.fit(StructureModel(net), datamodule=data_module)
