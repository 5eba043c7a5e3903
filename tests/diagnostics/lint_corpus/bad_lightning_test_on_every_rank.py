# Every rank tests: the padded test loader feeds a metric averaged over the ranks.
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
        return DataLoader(self.test_set, batch_size=8)  # expect: FS109

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
    trainer.test(module)
