"""A bi-encoder whose loaders are built by one helper; the README runs its validation on
keyed batches (one sample each), a batch sampler of its own that pads nothing, so the
DistributedSampler branch is not the one the shipped run takes."""

from argparse import ArgumentParser

import pytorch_lightning as pl
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class BiEncoder(pl.LightningModule):
    @staticmethod
    def add_model_specific_args(parent):
        parser = ArgumentParser(parents=[parent], add_help=False)
        parser.add_argument("--val_use_keyed_batches", action="store_true")
        parser.add_argument("--eval_batch_size", type=int, default=64)
        return parser

    def __init__(self, net, train_set, val_set, hparams):
        super().__init__()
        self.net = net
        self.train_set, self.val_set = train_set, val_set
        self.save_hyperparameters(hparams)

    def train_dataloader(self):
        return self._get_dataloader(dataset=self.train_set, keyed=False, training=True)

    def val_dataloader(self):
        return self._get_dataloader(
            dataset=self.val_set, keyed=self.hparams.val_use_keyed_batches, training=False
        )

    def _get_dataloader(self, dataset, keyed, training):
        shuffle = training
        if keyed:
            return DataLoader(dataset, batch_sampler=self.keyed_batches(dataset))
        if dist.is_initialized():
            return DataLoader(
                dataset,
                batch_size=self.hparams.eval_batch_size,
                sampler=DistributedSampler(dataset, shuffle=shuffle),
            )
        return DataLoader(dataset, batch_size=self.hparams.eval_batch_size, shuffle=shuffle)

    def keyed_batches(self, dataset):
        return [[i] for i in range(len(dataset))]

    def training_step(self, batch, batch_idx):
        return self.net(batch[0]).sub(batch[1]).pow(2).mean()

    def validation_step(self, batch, batch_idx):
        return self.net(batch[0]), batch[1]

    def validation_step_end(self, outputs):
        encoded, targets = outputs
        encoded, targets = self.all_gather(encoded), self.all_gather(targets)
        return (encoded.argmax(-1) == targets).float().mean()
