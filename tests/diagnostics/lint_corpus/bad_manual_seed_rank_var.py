import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, RandomSampler


def build(args, dataset):
    dist.init_process_group("gloo")
    my_seed = args.seed * 1000 + dist.get_rank()
    torch.manual_seed(my_seed)  # expect: FS104
    return DataLoader(dataset, sampler=RandomSampler(dataset), batch_size=args.batch_size)
