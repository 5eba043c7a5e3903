# The tree's own sampler takes rank= and world=: both node-local (the launcher's
# --local_rank and the script's --local_world_size), consistent on one node.
import argparse

import torch.distributed as dist
from sampling import SeqSampler
from torch.utils.data import DataLoader

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=0)
    parser.add_argument("--local_world_size", type=int, default=1)
    args = parser.parse_args()
    dist.init_process_group("nccl")
    rank, world = int(args.local_rank), int(args.local_world_size)
    sampler = SeqSampler(range(100), rank=rank, world=world)
    loader = DataLoader(range(100), sampler=sampler, batch_size=8)
