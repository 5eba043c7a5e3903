# The model registers the evaluator; the engine fits and tests on every device.
from datamodule import ImageDataModule
from evaluator import Evaluator
from lightning.pytorch import LightningModule, Trainer


class Model(LightningModule):
    def __init__(self, net, metrics):
        super().__init__()
        self.net, self.metrics = net, metrics

    def configure_callbacks(self):
        return [Evaluator(self.metrics)]

    def test_step(self, batch, batch_idx):
        return self.net(batch)


def run(net, metrics, train_data, test_data):
    trainer = Trainer(devices=4, strategy="ddp")
    trainer.test(Model(net, metrics), datamodule=ImageDataModule(train_data, test_data))
