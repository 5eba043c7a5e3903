# The same shard taken by the global rank; the local rank only picks the device, and a
# shard count that is not the world size (a split of files per worker) is no rank split.
import os

import torch
import torch.distributed as dist


def run(dataset, train, files_per_worker):
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    dataset = dataset.shard(dist.get_world_size(), dist.get_rank())
    pieces = [dataset.shard(files_per_worker, i) for i in range(files_per_worker)]
    chunk = dataset.shard(num_shards=8, index=local_rank)
    train(pieces, chunk)
