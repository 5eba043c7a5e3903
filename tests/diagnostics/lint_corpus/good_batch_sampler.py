from torch.utils.data import BatchSampler, DataLoader, RandomSampler

import fairshard


def build(dataset, labels, lengths, collate):
    fixed = fairshard.ClassBatchSampler(labels, {0: 12, 1: 2, 2: 2})
    buckets = fairshard.LengthBucketBatchSampler(lengths, batch_size=32)
    a = DataLoader(dataset, batch_sampler=fixed)
    b = DataLoader(dataset, batch_sampler=buckets, collate_fn=collate)
    return a, b


def manual_batching(dataset, collate):
    # batch_size=None turns automatic batching off: each "index" is a whole batch, on purpose
    batches = BatchSampler(RandomSampler(dataset), batch_size=32, drop_last=False)
    return DataLoader(dataset, sampler=batches, batch_size=None, collate_fn=collate)


def reused_name(dataset, labels, seed):
    sampler = fairshard.ClassBatchSampler(labels, {0: 4, 1: 4})
    first = DataLoader(dataset, batch_sampler=sampler)
    sampler = fairshard.DistributedSampler(dataset, seed=seed)
    return first, DataLoader(dataset, sampler=sampler, batch_size=8)
