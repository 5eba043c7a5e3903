import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler
from utils.torch_utils import select_device


def main(opt, dataset):
    device = select_device(opt.device)
    if opt.local_rank != -1:
        torch.cuda.set_device(opt.local_rank)
        device = torch.device("cuda", opt.local_rank)
        dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, sampler=sampler, batch_size=16)
    for epoch in range(opt.epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            batch.to(device)
