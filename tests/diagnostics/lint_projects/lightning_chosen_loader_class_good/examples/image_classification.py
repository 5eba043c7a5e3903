import pytorch_lightning as pl
from lt.core.data import TransformerDataModule
from lt.task.vision.model import ImageClassificationTransformer


def main(ds, model):
    dm = TransformerDataModule(ds, batch_size=8)
    task = ImageClassificationTransformer(model)
    trainer = pl.Trainer(accelerator="auto", devices="auto", max_epochs=5)
    trainer.fit(task, dm)
