from lib.module import Model
from lightning.pytorch import Trainer


def main(net, train_set, val_set):
    Trainer(devices=[0]).validate(Model(net, train_set, val_set))
