# The launcher arithmetic of detection codebases: a global rank built from the local one.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def worker(local_rank, num_gpus_per_machine, machine_rank, world_size, url, dataset):
    global_rank = machine_rank * num_gpus_per_machine + local_rank
    dist.init_process_group("nccl", init_method=url, world_size=world_size, rank=global_rank)
    rank = machine_rank * num_gpus_per_machine + local_rank
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank)
    loader = DataLoader(dataset, sampler=sampler, batch_size=8)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for batch in loader:
            pass
