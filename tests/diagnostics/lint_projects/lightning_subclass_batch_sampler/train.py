import lightning as L
from data import GroupedData


def main(model, train_set, val_set):
    trainer = L.Trainer(devices=8, strategy="ddp", use_distributed_sampler=False, max_epochs=50)
    trainer.fit(model, datamodule=GroupedData(train_set, val_set, 16))
