"""The same module, seeded only after fitting: each process draws its own split."""

import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, random_split


class Classifier(pl.LightningModule):
    def __init__(self, data):
        super().__init__()
        self.data = data
        self.net = torch.nn.Linear(4, 1)

    def setup(self, stage):
        self.train_data, self.valid_data = random_split(self.data, [90, 10])  # expect: FS110

    def train_dataloader(self):
        return DataLoader(self.train_data, batch_size=8, shuffle=True)

    def training_step(self, batch, batch_idx):
        return self.net(batch).sum()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())


if __name__ == "__main__":
    trainer = pl.Trainer(devices=4, strategy="ddp", max_epochs=2)
    trainer.fit(Classifier(torch.randn(100, 4)))
    pl.seed_everything(1020)
    trainer.test(Classifier(torch.randn(100, 4)))
