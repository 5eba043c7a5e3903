# The loaders spread mappings that may hold a sampler: the helper's own **kwargs
# (whatever its callers pass) and options filled with a "sampler" key in code. Nothing
# says the validation loader lacks one.
import lightning as L
import torch
from torch.utils.data import DataLoader

from fairshard import DistributedEvalSampler


def make_loader(dataset, **kwargs):
    return DataLoader(dataset, **kwargs)


class Segmenter(L.LightningModule):
    def __init__(self, model, train_set, val_set):
        super().__init__()
        self.model, self.train_set, self.val_set = model, train_set, val_set

    def train_dataloader(self):
        return make_loader(self.train_set, batch_size=8, shuffle=True)

    def val_dataloader(self):
        options = {"batch_size": 8}
        if self.trainer.world_size > 1:
            options["sampler"] = DistributedEvalSampler(self.val_set)
        return DataLoader(self.val_set, **options)

    def test_dataloader(self):
        return make_loader(self.val_set, sampler=DistributedEvalSampler(self.val_set))

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.binary_cross_entropy_with_logits(self.model(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_f1", self.f1(self.model(x), y), sync_dist=True)

    def test_step(self, batch, batch_idx):
        x, y = batch
        self.log("test_f1", self.f1(self.model(x), y), sync_dist=True)


def main(model, train_set, val_set):
    trainer = L.Trainer(devices=8, strategy="ddp")
    trainer.fit(Segmenter(model, train_set, val_set))
    trainer.test()
