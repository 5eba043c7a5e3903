# A variable named local_rank that holds the global rank: what it is bound to
# decides, not its name (dist.get_rank() is global).
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(dataset):
    dist.init_process_group("nccl")
    local_rank = dist.get_rank()
    world_size = dist.get_world_size()
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=local_rank)
    return DataLoader(dataset, sampler=sampler, batch_size=32), torch.device("cuda")
