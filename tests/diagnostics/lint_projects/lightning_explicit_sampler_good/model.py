import lightning as L
import torch


class PoseModel(L.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def training_step(self, batch, batch_idx):
        return self.net(batch).mean()

    def validation_step(self, batch, batch_idx):
        loss = self.net(batch).mean()
        self.log("val/rec_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())
