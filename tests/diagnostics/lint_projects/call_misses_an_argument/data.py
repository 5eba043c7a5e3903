"""The dataset: it needs the reference file's path."""

import torch
from torch.utils.data import Dataset


class MutationSet(Dataset):
    def __init__(self, wt_path, data, sep_len=1024):
        self.wt_path, self.data, self.sep_len = wt_path, data, sep_len

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        return torch.tensor(self.data[index])
