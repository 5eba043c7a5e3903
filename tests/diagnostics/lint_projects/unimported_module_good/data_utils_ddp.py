# A distributed copy of the data module that no script imports.
from torch.utils.data import DataLoader, DistributedSampler


def prepare_data(train_dataset):
    train_sampler = DistributedSampler(train_dataset)
    return DataLoader(train_dataset, batch_size=32, sampler=train_sampler)
