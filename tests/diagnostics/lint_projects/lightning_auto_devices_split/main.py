# Lightning 2.x takes every visible GPU when the trainer names none, and its launcher runs
# this script again in each process: the data module's setup and both helpers draw their
# splits from each process's own unseeded generators, so the ranks train on different sets.
import lightning as L
from datamodule import MotionData, split_indices, split_paths


def main(dataset, paths, model):
    train_paths, val_paths = split_paths(paths, 35000)
    train_set, test_set = split_indices(dataset)
    data = MotionData(train_set)
    trainer = L.Trainer(devices="auto", accelerator="auto", max_epochs=10)
    trainer.fit(model, datamodule=data)
    return train_paths, val_paths, test_set
