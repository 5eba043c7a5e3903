# The script caps its device count at one (none without a GPU) at the top and hands it to
# the trainer: one process, so Lightning pads nothing, whatever the metrics sync.
import lightning as L
import torch
from torch.utils.data import DataLoader

AVAIL_GPUS = min(1, torch.cuda.device_count())


class Classifier(L.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def training_step(self, batch, batch_idx):
        return self.net(batch[0]).sub(batch[1]).pow(2).mean()

    def validation_step(self, batch, batch_idx):
        loss = self.net(batch[0]).sub(batch[1]).pow(2).mean()
        self.log("val_loss", loss, sync_dist=True)


def train(net, train_set, val_set):
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True)
    val_loader = DataLoader(val_set, batch_size=64)
    trainer = L.Trainer(gpus=AVAIL_GPUS, max_epochs=10)
    trainer.fit(Classifier(net), train_loader, val_loader)
