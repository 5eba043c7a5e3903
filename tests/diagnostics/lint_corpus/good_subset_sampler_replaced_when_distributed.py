# A fold of the training set: SubsetRandomSampler for one process, replaced by a
# DistributedSampler over the same subset whenever the run is distributed.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, Subset, SubsetRandomSampler


def get_dataloaders(trainset, train_idx, batch, multinode):
    train_sampler = SubsetRandomSampler(train_idx)
    if multinode:
        train_sampler = DistributedSampler(
            Subset(trainset, train_idx), num_replicas=dist.get_world_size(), rank=dist.get_rank()
        )
    return DataLoader(Subset(trainset, train_idx), batch_size=batch, sampler=train_sampler)
