# The same loader over a dataset that reads one index per item: each batch of
# indices is taken as one index.
import torch
from torch.utils.data import BatchSampler, DataLoader, Dataset, RandomSampler


class RowDataset(Dataset):
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, idx):
        return torch.as_tensor(self.rows[idx])


def batches(rows):
    dataset = RowDataset(rows)
    sampler = BatchSampler(RandomSampler(dataset), batch_size=64, drop_last=False)
    return DataLoader(dataset, sampler=sampler)  # expect: FS112
