# The script only bounds its process count, and builds a padded query loader when it
# runs on several: the reduced score counts the repeats.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


@torch.no_grad()
def retrieve(model, queries, args):
    dist.init_process_group("nccl")
    args.world_size = dist.get_world_size()
    assert args.world_size <= 8, args.world_size
    if args.world_size > 1:
        sampler = DistributedSampler(queries, shuffle=False)  # expect: FS109
        loader = DataLoader(queries, batch_size=64, sampler=sampler)
    else:
        loader = DataLoader(queries, batch_size=64, shuffle=False)
    scores = [model(q) for q in loader]
    total = torch.cat(scores).sum()
    dist.all_reduce(total)
    return total.item() / len(queries)
