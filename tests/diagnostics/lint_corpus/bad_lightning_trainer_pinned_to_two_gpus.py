# The script makes two GPUs visible, then tests on a bare Trainer(): devices="auto" runs
# DDP on both, Lightning pads the plain test loader, and the losses are synced.
import os

os.environ["CUDA_VISIBLE_DEVICES"] = "2,3"

import pytorch_lightning as pl
from torch.utils.data import DataLoader


class Scorer(pl.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def test_step(self, batch, batch_idx):
        loss = self.net(batch[0]).sub(batch[1]).pow(2).mean()
        self.log("test_loss", loss, sync_dist=True)


def main(net, test_set):
    test_loader = DataLoader(test_set, batch_size=32, shuffle=False)  # expect: FS109
    trainer = pl.Trainer()
    trainer.test(model=Scorer(net), dataloaders=test_loader)
