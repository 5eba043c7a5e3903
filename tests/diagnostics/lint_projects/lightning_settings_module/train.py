# The trainer's devices come from the settings module (config.DEVICES = [0, 1]): DDP over
# two GPUs pads the validation loader, and the synced loss counts the repeats.
import config
import lightning as L
import torch
from torch.utils.data import DataLoader


class Net(L.LightningModule):
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
    trainer = L.Trainer(accelerator=config.ACCELERATOR, devices=config.DEVICES)
    trainer.fit(Net(), train, val)
