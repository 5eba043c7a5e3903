# The trainer caps validation at 50 batches a rank: a cap that a small set never reaches,
# so the padded repeats are read and the synced loss counts them.
import lightning as L
from torch.utils.data import DataLoader


class Scorer(L.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def training_step(self, batch, batch_idx):
        return self.net(batch[0]).sub(batch[1]).pow(2).mean()

    def validation_step(self, batch, batch_idx):
        loss = self.net(batch[0]).sub(batch[1]).pow(2).mean()
        self.log("val_loss", loss, sync_dist=True)


def main(net, train_set, val_set):
    train_loader = DataLoader(train_set, batch_size=32, shuffle=True)
    val_loader = DataLoader(val_set, batch_size=32)  # expect: FS109
    trainer = L.Trainer(accelerator="gpu", devices=4, strategy="ddp", limit_val_batches=50)
    trainer.fit(Scorer(net), train_loader, val_loader)
