import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def build_loader_finetune(config):
    train_set, val_set = config.train_set, config.val_set
    world, rank = dist.get_world_size(), dist.get_rank()
    sampler_train = DistributedSampler(train_set, world, rank, shuffle=True)
    sampler_val = DistributedSampler(val_set, world, rank, shuffle=False)  # expect: FS109
    loader_train = DataLoader(train_set, batch_size=32, sampler=sampler_train)
    loader_val = DataLoader(val_set, batch_size=32, sampler=sampler_val)
    return train_set, val_set, loader_train, loader_val
