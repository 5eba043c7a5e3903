# The name is bound again, but to a loader over a RandomSampler: every rank still reads the
# whole training set in its own order.
import torch.distributed as dist
from torch.utils.data import DataLoader, RandomSampler


def data_loader(trainset, args):
    dist.init_process_group("nccl")
    train_loader = DataLoader(trainset, batch_size=args.batch_size, shuffle=True)  # expect: FS103
    if args.resample:
        train_loader = DataLoader(trainset, sampler=RandomSampler(trainset), batch_size=8)
    return train_loader
