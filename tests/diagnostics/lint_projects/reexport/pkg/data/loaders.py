from torch.utils.data import DataLoader, DistributedSampler


def make_loader(dataset, batch_size, shuffle=True):
    sampler = DistributedSampler(dataset, shuffle=shuffle)  # expect: FS109
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)
