# The sampler replacement is off: the validation loader is not padded (each rank reads
# the whole set, and the synced mean is the mean of equal values).
import lightning as L
import torch
from torch.utils.data import DataLoader

import fairshard


class Classifier(L.LightningModule):
    def __init__(self, model, train_set, val_set):
        super().__init__()
        self.model, self.train_set, self.val_set = model, train_set, val_set

    def train_dataloader(self):
        sampler = fairshard.DistributedSampler(self.train_set)
        return DataLoader(self.train_set, batch_size=32, sampler=sampler)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=64)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.model(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        accuracy = (self.model(x).argmax(-1) == y).float().mean()
        self.log("val_accuracy", accuracy, sync_dist=True)


def main(model, train_set, val_set):
    trainer = L.Trainer(devices=8, strategy="ddp", use_distributed_sampler=False)
    trainer.fit(Classifier(model, train_set, val_set))
