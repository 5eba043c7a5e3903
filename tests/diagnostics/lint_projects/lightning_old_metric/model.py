# The loader hooks return through one helper; the validation loader names no sampler, so
# Lightning pads it under DDP, and the metric sums the padded counts over the ranks.
import pytorch_lightning as pl
import torch
from metrics import SpanF1
from torch.utils.data import DataLoader


class Tagger(pl.LightningModule):
    def __init__(self, net, data):
        super().__init__()
        self.net, self.data = net, data
        self.span_f1 = SpanF1()

    def validation_step(self, batch, batch_idx):
        return {"stats": self.span_f1(self.net(batch["x"]) > 0, batch["gold"])}

    def validation_epoch_end(self, outputs):
        tp, fp, fn = torch.stack([o["stats"] for o in outputs]).sum(0)
        self.log("span_f1", 2 * tp / (2 * tp + fp + fn))

    def train_dataloader(self):
        return self.get_dataloader("train")

    def val_dataloader(self):
        return self.get_dataloader("dev")

    def get_dataloader(self, prefix):
        shuffle = prefix == "train"
        return DataLoader(self.data[prefix], batch_size=8, shuffle=shuffle)  # expect: FS109


def main(net, data):
    trainer = pl.Trainer(gpus=4, distributed_backend="ddp")
    trainer.fit(Tagger(net, data))
