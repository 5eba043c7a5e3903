"""The model: its validation and test losses are averaged over the ranks (sync_dist=True)."""

import lightning as L


class Classifier(L.LightningModule):
    def validation_step(self, batch, batch_idx):
        loss = self.loss(batch)
        self.log("val/loss", loss, sync_dist=True)
        return loss

    def test_step(self, batch, batch_idx):
        self.log("test/loss", self.loss(batch), sync_dist=True)
