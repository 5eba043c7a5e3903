# mp.spawn gives each process its local index; the node's first rank is added
# to it: the sum is the global rank, right on any number of nodes.
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler


def main_worker(local_rank, world_size, rank_offset, dataset):
    rank = local_rank + rank_offset
    dist.init_process_group("nccl", world_size=world_size, rank=rank)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for batch in DataLoader(dataset, batch_size=8, sampler=sampler):
            pass


def launch(gpus_per_node, nodes, node_rank, dataset):
    mp.spawn(
        main_worker,
        args=(gpus_per_node * nodes, node_rank * gpus_per_node, dataset),
        nprocs=gpus_per_node,
    )
