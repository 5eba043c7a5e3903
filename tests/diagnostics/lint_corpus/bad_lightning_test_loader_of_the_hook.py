# The same model, tested with trainer.test(model): Lightning reads the test_dataloader
# hook, pads its loader under DDP, and the synced accuracy counts the repeats.
import lightning as L
import torch
from torch.utils.data import DataLoader

from fairshard import DistributedEvalSampler


class Classifier(L.LightningModule):
    def __init__(self, model, train_set, test_set):
        super().__init__()
        self.model, self.train_set, self.test_set = model, train_set, test_set

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=32, shuffle=True)

    def test_dataloader(self):
        return DataLoader(self.test_set, batch_size=64)  # expect: FS109

    def benchmark_dataloader(self):
        sampler = DistributedEvalSampler(self.test_set)
        return DataLoader(self.test_set, batch_size=64, sampler=sampler)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.model(x), y)

    def test_step(self, batch, batch_idx):
        x, y = batch
        accuracy = (self.model(x).argmax(-1) == y).float().mean()
        self.log("test_accuracy", accuracy, sync_dist=True)


def main(model, train_set, test_set):
    classifier = Classifier(model, train_set, test_set)
    trainer = L.Trainer(devices=8, strategy="ddp")
    trainer.fit(classifier)
    trainer.test(classifier)
