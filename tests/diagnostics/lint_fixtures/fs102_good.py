from torch.utils.data import DataLoader, DistributedSampler


def loaders(dataset):
    sampler = DistributedSampler(dataset, shuffle=True)
    a = DataLoader(dataset, batch_size=8, sampler=sampler)
    b = DataLoader(dataset, batch_size=8, shuffle=False, sampler=sampler)
    c = DataLoader(dataset, batch_size=8, shuffle=True)  # no process group: fine
    d = DataLoader(dataset, shuffle=True, sampler=None)
    return a, b, c, d
