from torch.utils.data import BatchSampler, DataLoader, DistributedSampler


def build(dataset, batch_size):
    batches = BatchSampler(DistributedSampler(dataset), batch_size, drop_last=False)
    return DataLoader(dataset, sampler=batches, num_workers=4)  # expect: FS112
