# Validation and test metrics are combined over the ranks.
import pytorch_lightning as pl


class LitModel(pl.LightningModule):
    def validation_step(self, batch, batch_idx):
        self.log("val_loss", self.loss(batch), sync_dist=True)

    def test_step(self, batch, batch_idx):
        self.log("test_loss", self.loss(batch), sync_dist=True)
