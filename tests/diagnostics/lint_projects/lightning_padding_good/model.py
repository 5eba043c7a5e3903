# The model: the validation score is a torchmetrics mean, summed over the ranks.
import lightning as L
import torchmetrics


class StructureModel(L.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.lddt = torchmetrics.MeanMetric()

    def validation_step(self, batch, batch_idx):
        self.lddt.update(self.net.score(batch))

    def on_validation_epoch_end(self):
        self.log("val/lddt", self.lddt.compute())
        self.lddt.reset()
