# The best-so-far metric is fed the epoch's MRR, which compute() syncs over the ranks:
# the samples Lightning's padded sampler repeats count twice.
import lightning as L
from torch.utils.data import DataLoader
from torchmetrics import MaxMetric
from torchmetrics.retrieval import RetrievalMRR


class Retriever(L.LightningModule):
    def __init__(self, model, train_set, val_set):
        super().__init__()
        self.model, self.train_set, self.val_set = model, train_set, val_set
        self.val_mrr = RetrievalMRR()
        self.val_mrr_best = MaxMetric()

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=32, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=64)  # expect: FS109

    def training_step(self, batch, batch_idx):
        return self.model(batch).mean()

    def validation_step(self, batch, batch_idx):
        preds, targets, indexes = self.model(batch)
        mrr = self.val_mrr(preds, targets, indexes)
        self.log("val/mrr", mrr, on_step=False, on_epoch=True)

    def on_validation_epoch_end(self):
        self.val_mrr_best.update(self.val_mrr.compute())
        self.log("val/mrr_best", self.val_mrr_best.compute())
        self.val_mrr.reset()


def main(model, train_set, val_set):
    trainer = L.Trainer(devices=8, strategy="ddp")
    trainer.fit(Retriever(model, train_set, val_set))
