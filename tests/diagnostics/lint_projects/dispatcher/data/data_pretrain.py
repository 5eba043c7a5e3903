import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def build_loader_pretrain(config):
    sampler = DistributedSampler(config.train_set, dist.get_world_size(), dist.get_rank())
    return DataLoader(config.train_set, batch_size=32, sampler=sampler)
