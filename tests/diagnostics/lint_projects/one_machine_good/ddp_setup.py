# The process group and the sampler, built from the spawn index; the launcher that
# imports this module pins the rendezvous to this host.
import torch.distributed as dist
from torch.utils.data import DistributedSampler


def setup(local_rank, world_size, dataset):
    dist.init_process_group("nccl", rank=local_rank, world_size=world_size)
    return DistributedSampler(dataset, num_replicas=world_size, rank=local_rank)
