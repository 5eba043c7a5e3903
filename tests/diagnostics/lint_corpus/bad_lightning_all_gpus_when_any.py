# Every GPU when there are any (devices="auto" with the GPU accelerator), else one CPU
# device: on a machine with several GPUs Lightning runs DDP and pads the validation loader.
import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader


class Net(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        return self.net(batch).mean()

    def validation_step(self, batch, batch_idx):
        self.log("val", self.net(batch).mean(), sync_dist=True)


if __name__ == "__main__":
    train = DataLoader([torch.randn(4) for _ in range(64)], batch_size=8, shuffle=True)
    val = DataLoader([torch.randn(4) for _ in range(30)], batch_size=8)  # expect: FS109
    if torch.cuda.is_available():
        trainer = pl.Trainer(accelerator="gpu", max_epochs=3)
    else:
        trainer = pl.Trainer(max_epochs=3)
    trainer.fit(Net(), train, val)
