# The same loop, written out in one function.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def loaders(datasets):
    dist.init_process_group("nccl")
    out = {}
    for split in ("train", "val"):
        sampler = DistributedSampler(datasets[split])  # expect: FS109
        out[split] = DataLoader(datasets[split], batch_size=32, sampler=sampler)
    return out
