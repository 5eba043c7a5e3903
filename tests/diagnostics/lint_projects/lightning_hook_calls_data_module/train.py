"""Four GPUs, DDP by default."""

import pytorch_lightning as pl
from model import Segmenter


def main(net, train_set, val_set):
    trainer = pl.Trainer(accelerator="gpu", devices=[4, 5, 6, 7])
    trainer.fit(Segmenter(net, train_set, val_set))
