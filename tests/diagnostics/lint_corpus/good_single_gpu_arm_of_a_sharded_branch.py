# The if/else that builds the samplers: the distributed arm shards, the other arm is
# the one-GPU run (run(0, args) without a process group), where shuffle=True is right.
import torch
from torch.utils.data import DataLoader


def run(rank, args, train_set, is_mp, world_size):
    if is_mp:
        sampler = torch.utils.data.distributed.DistributedSampler(
            train_set, num_replicas=world_size, rank=rank, shuffle=True
        )
        loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler)
    else:
        loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True)
    for epoch in range(args.epochs):
        if is_mp:
            sampler.set_epoch(epoch)
        for batch in loader:
            pass
