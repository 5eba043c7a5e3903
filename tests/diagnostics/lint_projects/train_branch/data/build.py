# One builder for both loaders: `if train: ... else: ...` rather than eval-like names.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def build_data_loader(cfg, dataset, train):
    dist.barrier()
    if train:
        sampler = DistributedSampler(dataset, shuffle=True)
    else:
        sampler = DistributedSampler(dataset, shuffle=False)  # expect: FS109
    return DataLoader(dataset, batch_size=cfg.batch_size, sampler=sampler, drop_last=train)
