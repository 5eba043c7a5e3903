from torch.utils.data import BatchSampler, DataLoader, RandomSampler

from fairshard import ClassBatchSampler


def loaders(dataset, labels):
    batches = ClassBatchSampler(labels, {0: 12, 1: 2, 2: 2})
    a = DataLoader(dataset, sampler=batches)  # FS112
    b = DataLoader(dataset, sampler=BatchSampler(RandomSampler(dataset), 16, False))  # FS112
    return a, b
