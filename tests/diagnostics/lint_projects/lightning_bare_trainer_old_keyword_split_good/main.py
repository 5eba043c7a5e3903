# No requirement file, but the trainer passes progress_bar_refresh_rate, which Lightning 1.7
# removed: the tree runs a 1.x release, where a trainer naming no accelerator and no device
# count runs one CPU process, so the unseeded splits are drawn once.
import pytorch_lightning as pl
from datamodule import MotionData, split_indices, split_paths


def main(dataset, paths, model):
    train_paths, val_paths = split_paths(paths, 35000)
    train_set, test_set = split_indices(dataset)
    data = MotionData(train_set)
    trainer = pl.Trainer(progress_bar_refresh_rate=10, max_epochs=10)
    trainer.fit(model, datamodule=data)
    return train_paths, val_paths, test_set
