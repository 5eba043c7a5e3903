# The generator's loss, combined over the ranks, and a proof search at the epoch's end.
import pytorch_lightning as pl


class Generator(pl.LightningModule):
    def on_validation_epoch_end(self):
        self.log("Pass@1_val", self.search(), sync_dist=True)

    def validation_step(self, batch, batch_idx):
        self.log("loss_val", self.loss(batch), sync_dist=True)
