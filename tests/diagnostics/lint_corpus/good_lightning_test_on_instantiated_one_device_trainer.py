# Training runs on the configured trainer (four GPUs); the test runs on the same config's
# trainer instantiated with devices=1 given beside it: one process, no padded test loader.
import hydra
import lightning as L
from torch.utils.data import DataLoader


class Parts(L.LightningDataModule):
    def __init__(self, train_set, test_set):
        super().__init__()
        self.train_set, self.test_set = train_set, test_set

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=32, shuffle=True)

    def test_dataloader(self):
        return DataLoader(self.test_set, batch_size=32)


class Classifier(L.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def training_step(self, batch, batch_idx):
        return self.net(batch[0]).mean()

    def test_step(self, batch, batch_idx):
        accuracy = (self.net(batch[0]).argmax(-1) == batch[1]).float().mean()
        self.log("test_acc", accuracy, sync_dist=True)


def main(cfg, net, train_set, test_set):
    model, data = Classifier(net), Parts(train_set, test_set)
    trainer = L.Trainer(devices=4, strategy="ddp", max_epochs=cfg.epochs)
    trainer.fit(model, datamodule=data)
    eval_trainer: L.Trainer = hydra.utils.instantiate(cfg.trainer, devices=1, strategy="auto")
    eval_trainer.test(model, datamodule=data)
