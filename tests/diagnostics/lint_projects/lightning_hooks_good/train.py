# The sampler replacement is off, but the Trainer runs MultiTaskDataModule, whose
# loaders shard; TextDataModule's hook is never run (only its dataset is read).
import pytorch_lightning as pl
from multitask import MultiTaskDataModule


def main(model, datasets):
    dm = MultiTaskDataModule(datasets)
    trainer = pl.Trainer(devices=8, strategy="ddp", replace_sampler_ddp=False)
    trainer.fit(model, datamodule=dm)
