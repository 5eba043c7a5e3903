# The model's validation NLL is a metric of the project's own, logged with sync_dist=True.
import pytorch_lightning as pl
from metrics import NLL


class GraphDiffusion(pl.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.val_nll = NLL()

    def validation_step(self, data, i):
        self.val_nll.update(self.net(data))

    def on_validation_epoch_end(self):
        self.log("val/epoch_NLL", self.val_nll.compute(), sync_dist=True)
