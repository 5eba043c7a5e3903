import pytorch_lightning as pl
import torch


class ImageClassificationTransformer(pl.LightningModule):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def training_step(self, batch, batch_idx):
        return self.model(**batch).loss

    def validation_step(self, batch, batch_idx):
        loss = self.model(**batch).loss
        self.log("val_loss", loss, prog_bar=True)  # rank 0's own share, not combined

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-4)
