# The evaluation loader is the `else` of `if is_train:` in a helper with neutral names.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def make_loader(dataset, is_train, batch_size):
    dist.init_process_group("nccl")
    if is_train:
        sampler = DistributedSampler(dataset, shuffle=True)
    else:
        sampler = DistributedSampler(dataset, shuffle=False)  # expect: FS109
    return DataLoader(dataset, sampler=sampler, batch_size=batch_size)
