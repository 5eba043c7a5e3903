# The same script with current keywords only: read as Lightning 2.x, whose trainer naming no
# devices takes every visible GPU, so each process draws its own splits.
import pytorch_lightning as pl
from datamodule import MotionData, split_indices, split_paths


def main(dataset, paths, model):
    train_paths, val_paths = split_paths(paths, 35000)
    train_set, test_set = split_indices(dataset)
    data = MotionData(train_set)
    trainer = pl.Trainer(enable_progress_bar=True, max_epochs=10)
    trainer.fit(model, datamodule=data)
    return train_paths, val_paths, test_set
