# The Trainer runs the first version of the data module (its loader is exact).
import lightning as L
from data.training import StructureDataModule
from model import StructureModel


def main(net, train_set, val_set):
    data_module = StructureDataModule(train_set, val_set)
    trainer = L.Trainer(devices=4, strategy="ddp")
    trainer.fit(StructureModel(net), datamodule=data_module)
