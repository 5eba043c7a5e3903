from torch.utils.data import DataLoader, DistributedSampler


def get_dataloader(dataset, batch_size, seed, shuffle=False):
    sampler = DistributedSampler(dataset, seed=seed, shuffle=shuffle, drop_last=True)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler)
