"""The model: its validation loss is averaged over the ranks (sync_dist=True)."""

import lightning as L


class Regressor(L.LightningModule):
    def validation_step(self, batch, batch_idx):
        loss = self.loss(batch)
        self.log("val/loss", loss, sync_dist=True)
        return loss
