# The pin sits in the arm a launcher's processes take (LOCAL_RANK is set):
# every rank sees GPU 0 alone, so ranks 1 and up have no GPU of their own.
import os

if "LOCAL_RANK" in os.environ:
    os.environ["CUDA_VISIBLE_DEVICES"] = "0"  # expect: FS106

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def loader(dataset):
    dist.init_process_group("nccl")
    return DataLoader(dataset, sampler=DistributedSampler(dataset, shuffle=False), batch_size=8)
