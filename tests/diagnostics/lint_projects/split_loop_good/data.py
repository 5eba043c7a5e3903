# The builder pads only the training split: evaluation goes through its own sampler.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, SequentialSampler


def get_sampler(dataset, split):
    if not dist.is_initialized():
        return None
    if split == "train":
        return DistributedSampler(dataset)
    return SequentialSampler(dataset)


def build_dataloader(dataset, split, batch_size):
    return DataLoader(dataset, batch_size=batch_size, sampler=get_sampler(dataset, split))
