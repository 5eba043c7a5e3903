"""A model whose validation accuracy is a torchmetrics metric, synced over the ranks."""

import lightning as L
import torchmetrics


class Classifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.accuracy = torchmetrics.Accuracy(task="binary")

    def validation_step(self, batch, batch_idx):
        self.accuracy.update(self(batch[0]), batch[1])

    def on_validation_epoch_end(self):
        self.log("val/acc", self.accuracy.compute())
