# The data module is picked from a table; the script hands trainer.test the loader its
# test_dataloader hook builds, which names no sampler: Lightning pads it under DDP, and
# the synced accuracy counts the repeats.
import lightning as L
from torch.utils.data import DataLoader


class Flowers(L.LightningDataModule):
    def __init__(self, test_set):
        super().__init__()
        self.test_set = test_set

    def test_dataloader(self):
        return DataLoader(self.test_set, batch_size=64)  # expect: FS109


class Classifier(L.LightningModule):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def test_step(self, batch, batch_idx):
        x, y = batch
        accuracy = (self.model(x).argmax(-1) == y).float().mean()
        self.log("test_accuracy", accuracy, sync_dist=True)


MODULES = {"flowers": Flowers}


def main(model, name, test_set):
    data_module = MODULES[name](test_set)
    trainer = L.Trainer(devices=8, strategy="ddp")
    trainer.test(Classifier(model), data_module.test_dataloader())
