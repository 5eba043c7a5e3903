# The same splits, each drawn alike on every rank: a seeded generator, a seed set
# before the draw, or a permutation that is not cut (reordering, not splitting).
import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, Subset


def loaders(dataset, batch_size, seed, val_fraction=0.1):
    dist.init_process_group("gloo")
    n_val = int(len(dataset) * val_fraction)
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(dataset))
    train_set = Subset(dataset, perm[n_val:])
    sampler = DistributedSampler(train_set, shuffle=True, seed=seed)
    return DataLoader(train_set, batch_size, sampler=sampler), Subset(dataset, perm[:n_val])


def holdout(dataset, seed):
    generator = torch.Generator().manual_seed(seed)
    order = torch.randperm(len(dataset), generator=generator)[: len(dataset) // 2]
    return Subset(dataset, order)


def seeded_first(dataset, args):
    np.random.seed(args.seed)
    perm = np.random.permutation(len(dataset))
    return Subset(dataset, perm[:100])


def own_share(dataset):
    rank, world = dist.get_rank(), dist.get_world_size()
    perm = torch.randperm(len(dataset))
    return Subset(dataset, perm[rank::world])


def bootstrap(dataset):
    # with replacement: a resample of the whole set, not a split (left alone)
    picked = np.random.choice(len(dataset), len(dataset))
    return Subset(dataset, picked)
