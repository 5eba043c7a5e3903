# Megatron-style tensor parallelism; the sampler is given the global rank and world size.
import torch
from megatron.core import parallel_state
from torch.utils.data import DataLoader, DistributedSampler


def build_loader(dataset, batch_size):
    parallel_state.initialize_model_parallel(tensor_model_parallel_size=2)
    rank = torch.distributed.get_rank()
    world = torch.distributed.get_world_size()
    sampler = DistributedSampler(dataset, num_replicas=world, rank=rank)  # expect: FS113
    return DataLoader(dataset, sampler=sampler, batch_size=batch_size)
