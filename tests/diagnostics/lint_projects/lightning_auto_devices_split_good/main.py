# The same tree seeded alike on every rank before anything is drawn: Lightning's launcher
# runs the script again in each process, and each draws the same splits.
import lightning as L
from datamodule import MotionData, split_indices, split_paths


def main(dataset, paths, model):
    L.seed_everything(42)
    train_paths, val_paths = split_paths(paths, 35000)
    train_set, test_set = split_indices(dataset)
    data = MotionData(train_set)
    trainer = L.Trainer(devices="auto", accelerator="auto", max_epochs=10)
    trainer.fit(model, datamodule=data)
    return train_paths, val_paths, test_set
