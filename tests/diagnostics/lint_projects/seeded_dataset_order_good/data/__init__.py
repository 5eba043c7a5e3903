"""The factory the training script builds its dataset with."""

from .datasets import RealFakeDataset


def create_dataset(paths):
    dataset = RealFakeDataset(paths)
    return dataset
