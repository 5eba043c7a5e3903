# The validation loader names no sampler, so under DDP Lightning puts in a padded
# DistributedSampler; the accuracy is averaged over the ranks with sync_dist=True.
import lightning as L
import torch
from torch.utils.data import DataLoader


class Classifier(L.LightningModule):
    def __init__(self, model, train_set, val_set):
        super().__init__()
        self.model, self.train_set, self.val_set = model, train_set, val_set

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=32, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=64)  # expect: FS109

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.model(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        accuracy = (self.model(x).argmax(-1) == y).float().mean()
        self.log("val_accuracy", accuracy, sync_dist=True)


def main(model, train_set, val_set):
    trainer = L.Trainer(devices=8, strategy="ddp")
    trainer.fit(Classifier(model, train_set, val_set))
