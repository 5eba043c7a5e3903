# A second script with a model of its own, whose validation logs each rank's own loss.
import lightning as L
import torch
from torch.utils.data import DataLoader


class LitOther(L.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", torch.nn.functional.mse_loss(self.net(x), y))

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())


net = torch.nn.Linear(4, 1)
train_loader = DataLoader(torch.utils.data.TensorDataset(torch.ones(8, 4)), batch_size=2)
eval_loader = DataLoader(torch.utils.data.TensorDataset(torch.ones(8, 4)), batch_size=2)
model = LitOther(net)
trainer = L.Trainer(max_epochs=5, accelerator="gpu")
trainer.fit(model, train_loader, eval_loader)
