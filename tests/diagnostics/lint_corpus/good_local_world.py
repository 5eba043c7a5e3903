import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def worker(gpu, dataset):
    ngpus = torch.cuda.device_count()
    dist.init_process_group("nccl", rank=gpu, world_size=ngpus)  # one node
    sampler = DistributedSampler(dataset, num_replicas=ngpus, rank=gpu)
    return DataLoader(dataset, sampler=sampler, batch_size=32)
