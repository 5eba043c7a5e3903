import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def build(args, dataset):
    if args.world_size > 1:
        dist.init_process_group("nccl")
        return DataLoader(dataset, batch_size=32, sampler=DistributedSampler(dataset))
    else:
        return DataLoader(dataset, batch_size=32, shuffle=True)
