from torch.utils.data import BatchSampler, DistributedSampler


class StatefulDistributedSampler(DistributedSampler):
    def __init__(self, dataset, batch_size, **kwargs):
        super().__init__(dataset=dataset, **kwargs)
        self.start_iter = 0
        self.batch_size = batch_size


class BalancedBatchSampler(BatchSampler):
    def __init__(self, dataset, batch_size, num_replicas, rank, shuffle, drop_last=True):
        sampler = StatefulDistributedSampler(
            dataset,
            batch_size=batch_size,
            num_replicas=num_replicas,
            rank=rank,
            shuffle=shuffle,
            drop_last=drop_last,
        )
        super().__init__(sampler, batch_size=batch_size, drop_last=drop_last)
