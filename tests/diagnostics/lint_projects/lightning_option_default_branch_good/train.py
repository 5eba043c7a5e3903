"""Trains on the GPUs the README names (four)."""

from argparse import ArgumentParser

import pytorch_lightning as pl
from modeling import BiEncoder


def main(net, train_set, val_set):
    parser = ArgumentParser()
    parser.add_argument("--gpus", type=int, default=1)
    parser = BiEncoder.add_model_specific_args(parser)
    args = parser.parse_args()
    model = BiEncoder(net, train_set, val_set, args)
    trainer = pl.Trainer(gpus=args.gpus, strategy="ddp")
    trainer.fit(model)
