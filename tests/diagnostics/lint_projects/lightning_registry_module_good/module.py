# The model's validation metrics are combined over the ranks (sync_dist=True).
import pytorch_lightning as pl


class GenericModule(pl.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def validation_step(self, batch, batch_idx):
        losses = self.net.loss(batch)
        self.log_dict({f"loss/{k}/val": v.mean() for k, v in losses.items()}, sync_dist=True)
