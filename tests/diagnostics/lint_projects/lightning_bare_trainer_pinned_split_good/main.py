# Below Lightning 2.0 (requirements.txt pins 1.9) a trainer that names no accelerator and
# no device count runs one CPU process: the unseeded splits are drawn once.
import pytorch_lightning as pl
from datamodule import MotionData, split_indices, split_paths


def main(dataset, paths, model):
    train_paths, val_paths = split_paths(paths, 35000)
    train_set, test_set = split_indices(dataset)
    data = MotionData(train_set)
    trainer = pl.Trainer(max_epochs=10)
    trainer.fit(model, datamodule=data)
    return train_paths, val_paths, test_set
