# A loop over training shards only, and a loop over splits that never reaches the sampler.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def shard_loaders(shards):
    dist.init_process_group("nccl")
    return [DataLoader(s, batch_size=8, sampler=DistributedSampler(s)) for s in shards]


def train_loader(dataset, names):
    sampler = DistributedSampler(dataset)
    for split in ["train", "test"]:
        print(split, len(names))
    return DataLoader(dataset, batch_size=8, sampler=sampler)
