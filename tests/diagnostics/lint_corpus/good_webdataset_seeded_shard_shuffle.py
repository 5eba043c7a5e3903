# The shard list is shuffled with a generator every rank seeds alike (or after the
# split, where a rank reorders its own share): the shares stay disjoint.
import random

import torch
import webdataset as wds


def shards(urls, batch_size, seed, epoch):
    return wds.DataPipeline(
        wds.SimpleShardList(urls),
        wds.shuffle(len(urls), rng=random.Random(seed + epoch)),
        wds.split_by_node,
        wds.shuffle(len(urls)),
        wds.split_by_worker,
        wds.tarfile_to_samples(),
        wds.shuffle(1000),
        wds.batched(batch_size, collation_fn=torch.utils.data.default_collate),
    )
