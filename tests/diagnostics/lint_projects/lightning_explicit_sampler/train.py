import lightning as L
from data import PoseData
from model import PoseModel


def main(net, train_set, val_set):
    trainer = L.Trainer(devices=2, strategy="ddp", max_epochs=10)
    trainer.fit(PoseModel(net), datamodule=PoseData(train_set, val_set, 16))
