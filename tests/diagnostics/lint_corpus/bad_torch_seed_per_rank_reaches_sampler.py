# torch's generator seeded per rank, then read by a sampler that draws from it: each
# rank reads the whole set in an order of its own. (A reseed after the first pass
# comes too late.)
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, RandomSampler


def main(args, dataset):
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(args.seed + rank)  # expect: FS104
    loader = DataLoader(dataset, sampler=RandomSampler(dataset), batch_size=8)
    for batch in loader:
        pass
    torch.manual_seed(args.seed)
