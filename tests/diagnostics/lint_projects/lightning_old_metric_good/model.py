# The loader hooks return through one helper, which gives evaluation an exact sampler (no
# padding, Lightning keeps it), so the metric sums each sample once.
import pytorch_lightning as pl
import torch
from metrics import SpanF1
from torch.utils.data import DataLoader

import fairshard


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
        if prefix == "train":
            return DataLoader(self.data[prefix], batch_size=8, shuffle=True)
        sampler = fairshard.DistributedEvalSampler(self.data[prefix])
        return DataLoader(self.data[prefix], batch_size=8, sampler=sampler)


def main(net, data):
    trainer = pl.Trainer(gpus=4, distributed_backend="ddp")
    trainer.fit(Tagger(net, data))
