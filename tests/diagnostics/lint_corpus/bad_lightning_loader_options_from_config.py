# The loaders take their options from a config dict (batch size, shuffle, workers):
# the validation loader still names no sampler, so under DDP Lightning puts in a
# padded DistributedSampler, and the F1 is averaged over the ranks.
import lightning as L
import torch
from torch.utils.data import DataLoader

LOADER_CONFIG = {
    "train": {"batch_size": 8, "shuffle": True, "num_workers": 4},
    "val": {"batch_size": 8, "shuffle": False, "num_workers": 4},
}
TRAINER_CONFIG = {"max_epochs": 100, "devices": "auto", "strategy": "ddp"}


class Segmenter(L.LightningModule):
    def __init__(self, model, train_set, val_set, loader_config):
        super().__init__()
        self.model, self.train_set, self.val_set = model, train_set, val_set
        self.loader_config = loader_config

    def train_dataloader(self):
        return DataLoader(self.train_set, **self.loader_config["train"])

    def val_dataloader(self):
        return DataLoader(self.val_set, **self.loader_config["val"])  # expect: FS109

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.binary_cross_entropy_with_logits(self.model(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_f1", self.f1(self.model(x), y), sync_dist=True)


def main(model, train_set, val_set):
    trainer = L.Trainer(**TRAINER_CONFIG)
    trainer.fit(Segmenter(model, train_set, val_set, LOADER_CONFIG))
