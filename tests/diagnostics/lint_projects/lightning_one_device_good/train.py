from lib.module import Model
from lightning.pytorch import Trainer


def main(net, train_set, val_set):
    trainer = Trainer(
        max_epochs=10,
        devices=1,
        # strategy="ddp",
    )
    trainer.fit(Model(net, train_set, val_set))
