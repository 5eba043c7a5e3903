import torch
from torch.utils.data import DataLoader

import fairshard


def build(args, dataset):
    torch.distributed.init_process_group("nccl")
    rank = args.local_rank
    torch.cuda.set_device(rank)
    sampler = fairshard.DistributedSampler(dataset, rank=rank)  # expect: FS111
    return DataLoader(dataset, sampler=sampler, batch_size=32)
