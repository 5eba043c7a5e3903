# The Trainer is told not to put in its sampler, and runs the data module above.
import pytorch_lightning as pl
from datamodule import TextDataModule


def main(model, dataset):
    dm = TextDataModule(dataset, batch_size=32)
    trainer = pl.Trainer(devices=8, strategy="ddp", use_distributed_sampler=False)
    trainer.fit(model, datamodule=dm)
