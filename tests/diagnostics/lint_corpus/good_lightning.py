import lightning as L
from torch.utils.data import DataLoader


class DataModule(L.LightningDataModule):
    def __init__(self, train_set, val_set):
        super().__init__()
        self.train_set = train_set
        self.val_set = val_set

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=32, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=32)


def main(model, train_set, val_set):
    trainer = L.Trainer(accelerator="gpu", devices=4, strategy="ddp", max_epochs=10)
    trainer.fit(model, datamodule=DataModule(train_set, val_set))
