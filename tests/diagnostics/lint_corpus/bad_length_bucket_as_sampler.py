from torch.utils.data import DataLoader

import fairshard


def build(dataset, lengths, collate):
    buckets = fairshard.LengthBucketBatchSampler(lengths, batch_size=32)
    return DataLoader(dataset, sampler=buckets, collate_fn=collate)  # expect: FS112
