# Started by torchrun (it reads LOCAL_RANK) but every process sets the same GPU list
# and never picks its own in it: all compute on the first.
import os

import torch
from torch.utils.data import DataLoader, DistributedSampler


def setup(args):
    local_rank = int(os.environ["LOCAL_RANK"])
    os.environ.update(CUDA_VISIBLE_DEVICES=args.gpus)  # expect: FS106
    return local_rank, torch.device("cuda")


def loader(dataset):
    return DataLoader(dataset, sampler=DistributedSampler(dataset, shuffle=False), batch_size=8)
