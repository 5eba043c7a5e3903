import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def loader(args, dataset):
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    seed = args.seed + rank
    sampler = DistributedSampler(dataset, seed=seed)  # expect: FS104
    return DataLoader(dataset, sampler=sampler, batch_size=args.batch_size)
