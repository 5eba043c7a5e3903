"""Trains on every visible GPU: Lightning calls setup("fit") in each process it starts,
and each draws its own split from the unseeded generator."""

import lightning as L
from datamodule import VoxelData
from model import Net

if __name__ == "__main__":
    data = VoxelData(dataset=list(range(100)))
    trainer = L.Trainer()
    trainer.fit(Net(), data)
