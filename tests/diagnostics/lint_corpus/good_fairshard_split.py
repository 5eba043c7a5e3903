import torch.distributed as dist
from torch.utils.data import DataLoader, Subset

import fairshard


def loaders(dataset, labels, seed):
    dist.init_process_group("nccl")
    train_idx, val_idx = fairshard.split(len(dataset), [0.9, 0.1], seed=seed, stratify=labels)
    train_set = Subset(dataset, train_idx)
    val_set = Subset(dataset, val_idx)
    train = DataLoader(train_set, sampler=fairshard.DistributedSampler(train_set), batch_size=32)
    val = DataLoader(val_set, sampler=fairshard.DistributedEvalSampler(val_set), batch_size=32)
    return train, val
