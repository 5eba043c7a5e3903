"""Pretraining on four GPUs: a training loader only (Lightning shards it)."""

import lightning as L
from torch.utils.data import DataLoader


class Pretrainer(L.LightningModule):
    def __init__(self, net, corpus):
        super().__init__()
        self.net, self.corpus = net, corpus

    def train_dataloader(self):
        return DataLoader(self.corpus, batch_size=64, shuffle=True)

    def training_step(self, batch, batch_idx):
        return self.net(batch).mean()


def main(net, corpus):
    L.Trainer(devices=4, strategy="ddp", max_epochs=10).fit(Pretrainer(net, corpus))


if __name__ == "__main__":
    main(None, None)
