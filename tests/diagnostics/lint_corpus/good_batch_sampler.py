from torch.utils.data import DataLoader

import fairshard


def build(dataset, labels, lengths, collate):
    fixed = fairshard.ClassBatchSampler(labels, {0: 12, 1: 2, 2: 2})
    buckets = fairshard.LengthBucketBatchSampler(lengths, batch_size=32)
    a = DataLoader(dataset, batch_sampler=fixed)
    b = DataLoader(dataset, batch_sampler=buckets, collate_fn=collate)
    return a, b
