# The retriever's recall, combined over the ranks.
import pytorch_lightning as pl


class Retriever(pl.LightningModule):
    def validation_step(self, batch, batch_idx):
        self.log("Recall@10_val", self.recall(batch), sync_dist=True)
