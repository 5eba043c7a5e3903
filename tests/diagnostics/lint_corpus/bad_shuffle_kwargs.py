from torch.utils.data import DataLoader, DistributedSampler


def build(dataset, batch_size, workers):
    loader_kwargs = {"batch_size": batch_size, "shuffle": True, "num_workers": workers}
    sampler = DistributedSampler(dataset)
    return DataLoader(dataset, sampler=sampler, **loader_kwargs)  # expect: FS102
