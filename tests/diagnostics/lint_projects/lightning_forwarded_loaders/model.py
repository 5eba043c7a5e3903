import pytorch_lightning as pl
from core.metrics import ConfusionCounts


class SegModel(pl.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.test_counts = ConfusionCounts(4)

    def training_step(self, batch, batch_idx):
        return self.net(batch[0]).sub(batch[1]).pow(2).mean()

    def validation_step(self, batch, batch_idx):
        loss = self.net(batch[0]).sub(batch[1]).pow(2).mean()
        self.log("val/loss", loss, sync_dist=True)

    def test_step(self, batch, batch_idx):
        self.test_counts.update(self.net(batch[0]).argmax(1), batch[1])

    def on_test_epoch_end(self):
        self.test_counts.synchronize()
