# The sampler is iterated once to peek at it, then handed to the loader that every rank
# reads: each rank reads the whole subset in its own order.
import torch.distributed as dist
from torch.utils.data import DataLoader, SubsetRandomSampler


def loaders(dataset, train_idx, batch_size):
    dist.init_process_group("nccl")
    sampler = SubsetRandomSampler(train_idx)  # expect: FS110
    first = [i for i in sampler][:4]
    return first, DataLoader(dataset, batch_size=batch_size, sampler=sampler)
