# The job asks the scheduler for one GPU and the Trainer names no devices, so
# Lightning runs one process: nothing is padded.
import lightning as L
import torch
from torch.utils.data import DataLoader


class LitNet(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", torch.nn.functional.mse_loss(self.net(x), y), sync_dist=True)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())


if __name__ == "__main__":
    data = torch.utils.data.TensorDataset(torch.randn(100, 4), torch.randn(100, 1))
    train_loader = DataLoader(data, batch_size=8, shuffle=True)
    val_loader = DataLoader(data, batch_size=8)
    trainer = L.Trainer(max_epochs=10)
    trainer.fit(LitNet(), train_loader, val_loader)
