# Loaders built per split, but the padded sampler only for the training split.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

from fairshard import DistributedEvalSampler


def loaders(datasets):
    dist.init_process_group("nccl")
    out = {}
    for split in ("train", "val"):
        if split == "train":
            sampler = DistributedSampler(datasets[split])
        else:
            sampler = DistributedEvalSampler(datasets[split])
        out[split] = DataLoader(datasets[split], batch_size=32, sampler=sampler)
    return out
