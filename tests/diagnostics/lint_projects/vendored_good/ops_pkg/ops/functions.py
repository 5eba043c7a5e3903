from torch.utils.data import DataLoader, DistributedSampler


def sharded(dataset):
    return DataLoader(dataset, sampler=DistributedSampler(dataset, shuffle=False, drop_last=True))
