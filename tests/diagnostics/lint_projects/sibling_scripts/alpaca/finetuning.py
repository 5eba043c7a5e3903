# Run from its own folder: ``engine`` is the engine.py beside it.
import torch.distributed as dist
from engine import train_one_epoch
from torch.utils.data import DataLoader, DistributedSampler


def main(model, dataset_train, dataset_val):
    dist.init_process_group("nccl")
    sampler_train = DistributedSampler(dataset_train)
    sampler_val = DistributedSampler(dataset_val, shuffle=False)  # expect: FS109
    loader_train = DataLoader(dataset_train, batch_size=8, sampler=sampler_train)
    loader_val = DataLoader(dataset_val, batch_size=8, sampler=sampler_val)
    for epoch in range(3):
        sampler_train.set_epoch(epoch)
        train_one_epoch(model, loader_train, loader_val, 0)
