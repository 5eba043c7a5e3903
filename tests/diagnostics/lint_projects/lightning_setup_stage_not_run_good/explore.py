"""Tests and predicts with a model on every visible GPU: Lightning calls setup("test") and
setup("predict"), which never enter the data module's fit branch, so no split is drawn."""

import lightning as L
from datamodule import VoxelData
from model import Net

if __name__ == "__main__":
    data = VoxelData(dataset=None, test_set=[])
    trainer = L.Trainer()
    trainer.test(Net(), data)
    trainer.predict(Net(), data)
