# Every rank draws the subset by hand from its own generator: the ranks build different
# Subsets, so their shares overlap and some samples are never read.
import numpy as np
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, Subset


def build_cache_loader(dataset, queries_num, refresh_rate, device):
    dist.init_process_group("nccl")
    print("drawing on rank", dist.get_rank())
    sampled = np.random.choice(queries_num, refresh_rate, replace=False)  # expect: FS110
    subset = Subset(dataset, sampled.tolist())
    return DataLoader(subset, batch_size=32, sampler=DistributedSampler(subset, shuffle=False))
