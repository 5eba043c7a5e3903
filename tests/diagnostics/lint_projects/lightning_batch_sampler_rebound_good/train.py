import lightning as L
from data import SortedData


def main(model, train_set, val_set):
    trainer = L.Trainer(devices=1, max_epochs=50)
    trainer.fit(model, datamodule=SortedData(train_set, val_set, 16, num_devices=1))
