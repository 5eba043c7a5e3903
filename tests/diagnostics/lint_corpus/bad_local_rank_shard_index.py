# A datasets.Dataset sharded by the node-local rank over the global world: on two nodes the
# ranks with equal LOCAL_RANK read the same shard, and half the shards are never read.
import os

import torch
import torch.distributed as dist


def run(dataset, train):
    local_rank = os.environ.get("LOCAL_RANK")
    ddp = local_rank is not None
    rank = int(local_rank) if ddp else 0
    if ddp:
        torch.cuda.set_device(rank)
        dist.init_process_group("nccl")
        dataset = dataset.shard(dist.get_world_size(), rank)  # expect: FS111
    train(dataset.with_format("torch"))
