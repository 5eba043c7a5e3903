# Megatron: the sampler is sharded by the data-parallel rank and size.
from megatron.core import mpu
from torch.utils.data import DataLoader, DistributedSampler


def build_data_loader(dataset, micro_batch_size):
    world_size = mpu.get_data_parallel_world_size()
    rank = mpu.get_data_parallel_rank()
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank)
    return DataLoader(dataset, batch_size=micro_batch_size, sampler=sampler, drop_last=True)
