# The tree's own sampler takes rank= and world=: the rank is node-local, the world
# global, so on several nodes ranks with equal local rank read the same share.
import argparse

import torch.distributed as dist
from sampling import SeqSampler
from torch.utils.data import DataLoader

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=0)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    world = dist.get_world_size()
    sampler = SeqSampler(range(100), rank=args.local_rank, world=world)  # expect: FS111
    loader = DataLoader(range(100), sampler=sampler, batch_size=8)
