# The script asserts it runs on one process, and only then builds its query loader: the
# DistributedSampler under `if world_size > 1:` is never built, nothing is padded.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


@torch.no_grad()
def retrieve(model, queries, args):
    dist.init_process_group("nccl")
    args.world_size = dist.get_world_size()
    assert args.world_size == 1, args.world_size
    if args.world_size > 1:
        sampler = DistributedSampler(queries, shuffle=False)
        loader = DataLoader(queries, batch_size=64, sampler=sampler)
    else:
        loader = DataLoader(queries, batch_size=64, shuffle=False)
    scores = [model(q) for q in loader]
    total = torch.cat(scores).sum()
    dist.all_reduce(total)
    return total.item() / len(queries)
