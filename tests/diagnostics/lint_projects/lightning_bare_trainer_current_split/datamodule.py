import random

import pytorch_lightning as L
import torch
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, Subset, random_split


def split_paths(paths, limit):
    """A sample of the image paths, cut 90/10 into training and validation."""
    paths = random.sample(paths, limit)  # expect: FS110
    cut = int(0.9 * len(paths))
    train_paths = paths[:cut]
    val_paths = paths[cut:]
    return train_paths, val_paths


def split_indices(dataset):
    ids = list(range(len(dataset)))
    train_idx, test_idx = train_test_split(ids, test_size=0.2)  # expect: FS110
    return Subset(dataset, train_idx), Subset(dataset, test_idx)


class MotionData(L.LightningDataModule):
    def __init__(self, dataset):
        super().__init__()
        self.dataset = dataset

    def setup(self, stage=None):
        n_val = len(self.dataset) // 20
        self.train_set, self.val_set = random_split(  # expect: FS110
            self.dataset, [len(self.dataset) - n_val, n_val]
        )

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=32, shuffle=True)

    def prepare_data(self):
        # Lightning runs prepare_data in one process per machine: the split it writes is
        # the one every rank's setup reads back
        parts = random_split(range(len(self.dataset)), [0.9, 0.1])
        torch.save([list(p) for p in parts], "split.pt")
