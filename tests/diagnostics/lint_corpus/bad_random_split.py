import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, random_split


def loaders(full_dataset, batch_size):
    dist.init_process_group("nccl")
    n_val = len(full_dataset) // 10
    train_set, val_set = random_split(  # expect: FS110
        full_dataset, [len(full_dataset) - n_val, n_val]
    )
    train_loader = DataLoader(train_set, batch_size, sampler=DistributedSampler(train_set))
    return train_loader, val_set
