import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def build(args, dataset):
    if args.distributed:
        dist.init_process_group("nccl")
        train_sampler = DistributedSampler(dataset)
    else:
        train_sampler = None
    return DataLoader(
        dataset,
        batch_size=args.batch_size,
        shuffle=(train_sampler is None),
        sampler=train_sampler,
    )
