# The same config value pins every process of a DDP job to one GPU list, with
# no torch.cuda.set_device to pick each process's own.
import os

import torch
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler


def main(cfg, dataset):
    os.environ["CUDA_VISIBLE_DEVICES"] = str(cfg.gpu_idx)  # expect: FS106
    model = DistributedDataParallel(torch.nn.Linear(4, 1).cuda())
    sampler = DistributedSampler(dataset, shuffle=False)
    return model, DataLoader(dataset, sampler=sampler, batch_size=8)
