# This model syncs its validation loss over the ranks: the padded repeats are averaged in.
import lightning as L
import torch
from torch.utils.data import DataLoader


class LitNet(L.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", torch.nn.functional.mse_loss(self.net(x), y), sync_dist=True)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())


def main(net, train_set, eval_set, gpus):
    train_loader = DataLoader(train_set, batch_size=8, shuffle=True)
    eval_loader = DataLoader(eval_set, batch_size=8)  # expect: FS109
    model = LitNet(net)
    trainer = L.Trainer(devices=gpus)
    trainer.fit(model, train_loader, eval_loader)
