# Training runs DDP on four GPUs; the test runs afterwards on a trainer rebuilt under the
# same name for one device: Lightning puts no sampler into the test loader.
import lightning as L
from torch.utils.data import DataLoader


class Classifier(L.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def training_step(self, batch, batch_idx):
        return self.net(batch[0]).mean()

    def test_step(self, batch, batch_idx):
        accuracy = (self.net(batch[0]).argmax(-1) == batch[1]).float().mean()
        self.log("test_acc", accuracy, sync_dist=True)


def main(net, train_set, test_set):
    model = Classifier(net)
    train_loader = DataLoader(train_set, batch_size=32, shuffle=True)
    test_loader = DataLoader(test_set, batch_size=32)
    trainer = L.Trainer(devices=4, strategy="ddp", max_epochs=10)
    trainer.fit(model, train_loader)
    trainer = L.Trainer(devices=1)
    trainer.test(model, dataloaders=test_loader)
