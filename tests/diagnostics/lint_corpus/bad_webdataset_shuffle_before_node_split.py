# The shard list is shuffled with webdataset's unseeded shuffle (seeded from the
# process id and the clock) before split_by_node: every rank cuts its share of a
# different order, so ranks read some shards twice and others never.
import torch
import webdataset as wds


def shards(urls, batch_size):
    return wds.DataPipeline(
        wds.SimpleShardList(urls),
        wds.shuffle(len(urls)),  # expect: FS105
        wds.split_by_node,
        wds.split_by_worker,
        wds.tarfile_to_samples(),
        wds.shuffle(1000),
        wds.batched(batch_size, collation_fn=torch.utils.data.default_collate),
    )
