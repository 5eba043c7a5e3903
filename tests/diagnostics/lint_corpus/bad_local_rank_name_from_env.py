# The node-local rank, bound from LOCAL_RANK, passed as the sampler's rank with
# the global world size: ranks of equal local rank read the same share.
import os

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(dataset):
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    world_size = dist.get_world_size()
    sampler = DistributedSampler(  # expect: FS111
        dataset, num_replicas=world_size, rank=local_rank
    )
    return DataLoader(dataset, sampler=sampler, batch_size=32)
