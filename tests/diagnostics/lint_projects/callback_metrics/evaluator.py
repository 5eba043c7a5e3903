# A callback that updates the metric objects handed to it and logs each one at the epoch's
# end: Lightning computes them, synced over the ranks.
from lightning.pytorch import Callback
from torch import nn


class Evaluator(nn.Module, Callback):
    def __init__(self, test_metrics):
        super().__init__()
        self.test_metrics = nn.ModuleList(test_metrics)

    def on_test_batch_end(self, trainer, pl_module, outputs, batch, batch_idx, dataloader_idx=0):
        for metric in self.test_metrics:
            metric.update(batch)

    def on_test_epoch_end(self, trainer, pl_module):
        for metric in self.test_metrics:
            self.log(metric.name, metric)
