# Rank 0 draws the subset by hand and broadcasts it: every rank builds the same Subset.
import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, Subset


def build_cache_loader(dataset, queries_num, refresh_rate, device):
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    if rank == 0:
        sampled = np.random.choice(queries_num, refresh_rate, replace=False).astype(np.int64)
    else:
        sampled = np.zeros(refresh_rate, dtype=np.int64)
    shared = torch.from_numpy(sampled).to(device)
    dist.broadcast(shared, src=0)
    sampled = shared.cpu().numpy()
    subset = Subset(dataset, list(sampled))
    return DataLoader(subset, batch_size=32, sampler=DistributedSampler(subset, shuffle=False))
