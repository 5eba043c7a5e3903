from torch.utils.data import DataLoader, DistributedSampler


def get_data_loaders(datasets, batch_size, is_distributed=False):
    """Plain shuffling loaders, or sharded ones when asked for."""
    if is_distributed:
        return [
            DataLoader(dataset, batch_size=batch_size, sampler=DistributedSampler(dataset))
            for dataset in datasets
        ]
    return [DataLoader(dataset, batch_size=batch_size, shuffle=True) for dataset in datasets]
