# The script runs its multi-GPU function on several processes and its single-GPU function,
# whose subset samplers shard nothing, only in the else of `if ngpus_per_node > 1:`.
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, DistributedSampler, Subset, SubsetRandomSampler

ngpus_per_node = torch.cuda.device_count()


def run_multi_gpu(rank, dataset, train_idx):
    dist.init_process_group("nccl", rank=rank, world_size=ngpus_per_node)
    sampler = DistributedSampler(Subset(dataset, train_idx))
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for batch in DataLoader(Subset(dataset, train_idx), sampler=sampler):
            print(batch)


def run_single_gpu(dataset, train_idx):
    for _ in range(10):
        for batch in DataLoader(dataset, sampler=SubsetRandomSampler(train_idx)):
            print(batch)


if __name__ == "__main__":
    dataset, train_idx = torch.randn(100, 4), list(range(80))
    if ngpus_per_node > 1:
        mp.spawn(run_multi_gpu, args=(dataset, train_idx), nprocs=ngpus_per_node)
    else:
        run_single_gpu(dataset, train_idx)
