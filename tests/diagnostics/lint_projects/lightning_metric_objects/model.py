# The model logs the metric object; Lightning computes (and syncs) it at the epoch's end.
import pytorch_lightning as pl
from metrics import FDE


class Forecaster(pl.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.min_fde = FDE()

    def validation_step(self, batch, batch_idx):
        self.min_fde.update(self.net(batch), batch.y)
        self.log("val_minFDE", self.min_fde, on_epoch=True)
