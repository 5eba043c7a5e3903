# The same script, whose multi-GPU function hands the rank to the subset loop as well:
# every process iterates the whole subset.
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, SubsetRandomSampler

ngpus_per_node = torch.cuda.device_count()


def run_multi_gpu(rank, dataset, train_idx):
    dist.init_process_group("nccl", rank=rank, world_size=ngpus_per_node)
    run_single_gpu(dataset, train_idx)


def run_single_gpu(dataset, train_idx):
    for _ in range(10):
        for batch in DataLoader(dataset, sampler=SubsetRandomSampler(train_idx)):  # expect: FS110
            print(batch)


if __name__ == "__main__":
    dataset, train_idx = torch.randn(100, 4), list(range(80))
    if ngpus_per_node > 1:
        mp.spawn(run_multi_gpu, args=(dataset, train_idx), nprocs=ngpus_per_node)
    else:
        run_single_gpu(dataset, train_idx)
