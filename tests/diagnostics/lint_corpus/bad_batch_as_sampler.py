from torch.utils.data import DataLoader

from fairshard import ClassBatchSampler


def build(dataset, labels):
    fixed = ClassBatchSampler(labels, {0: 12, 1: 2, 2: 2})
    return DataLoader(dataset, sampler=fixed)  # expect: FS112
