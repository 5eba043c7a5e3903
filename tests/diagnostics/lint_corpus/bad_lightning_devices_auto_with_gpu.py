# The automatic count is the arm taken when a GPU is visible: Lightning then takes every
# GPU, one process each, and each process draws its own split without a seed.
import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, random_split


class Net(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        return self.net(batch).mean()


if __name__ == "__main__":
    data = [torch.randn(4) for _ in range(64)]
    train_set, val_set = random_split(data, [0.9, 0.1])  # expect: FS110
    trainer = pl.Trainer(
        max_epochs=3,
        accelerator="gpu" if torch.cuda.is_available() else "cpu",
        devices="auto" if torch.cuda.is_available() else 1,
    )
    trainer.fit(Net(), DataLoader(train_set, batch_size=8, shuffle=True))
