import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def loaders(train_set, val_set, batch_size):
    dist.init_process_group("nccl")
    train_loader = DataLoader(train_set, batch_size, sampler=DistributedSampler(train_set))
    val_loader = DataLoader(
        val_set,
        batch_size,
        sampler=DistributedSampler(val_set),  # expect: FS109
    )
    return train_loader, val_loader
