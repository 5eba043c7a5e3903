"""A dataset whose constructor shuffles its file list from Python's global generator."""

import random

from torch.utils.data import Dataset


class RealFakeDataset(Dataset):
    def __init__(self, paths):
        self.data_list = list(paths)
        random.shuffle(self.data_list)

    def __len__(self):
        return len(self.data_list)

    def __getitem__(self, index):
        return self.data_list[index]
