import pytorch_lightning as pl
import torch


class VocosExp(pl.LightningModule):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def training_step(self, batch, batch_idx):
        return self.model(batch).mean()

    def validation_step(self, batch, batch_idx):
        loss = self.model(batch).mean()
        self.log("val_loss", loss, sync_dist=True)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-4)
