# Below Lightning 2.0 a trainer on several GPUs that names no strategy spawns its
# processes: the script runs once, and the splits its helpers draw reach every rank in
# the pickled data module. But each spawned process calls the data module's setup again,
# and the split drawn there differs between ranks.
import pytorch_lightning as pl
from datamodule import MotionData, split_indices, split_paths


def main(dataset, paths, model):
    train_paths, val_paths = split_paths(paths, 35000)
    train_set, test_set = split_indices(dataset)
    data = MotionData(train_set)
    trainer = pl.Trainer(accelerator="gpu", devices=2, max_epochs=10)
    trainer.fit(model, datamodule=data)
    return train_paths, val_paths, test_set
