# The dataset reads a whole batch of indices per item (its __getitem__ loops
# over them), and the loader groups one item per batch: a BatchSampler passed
# as sampler= hands each item its batch, on purpose (then .squeeze(0)).
import torch
from torch.utils.data import BatchSampler, DataLoader, Dataset, RandomSampler


class SequenceDataset(Dataset):
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, idx):
        return torch.stack([self.rows[i] for i in idx])


def batches(rows):
    dataset = SequenceDataset(rows)
    sampler = BatchSampler(RandomSampler(dataset), batch_size=64, drop_last=False)
    loader = DataLoader(dataset, sampler=sampler)
    return [batch.squeeze(0) for batch in loader]
