from torch.utils.data import BatchSampler, DataLoader, DistributedSampler, SequentialSampler


def loaders(dataset):
    sampler = DistributedSampler(dataset)
    a = DataLoader(dataset, batch_size=8, shuffle=True, sampler=sampler)  # FS102
    batches = BatchSampler(SequentialSampler(dataset), 8, False)
    b = DataLoader(dataset, shuffle=True, batch_sampler=batches)  # FS102
    return a, b
