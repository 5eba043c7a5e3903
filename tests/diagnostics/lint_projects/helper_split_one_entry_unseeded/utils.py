"""Helpers of the training scripts; the module uses torch.distributed itself."""

import torch.distributed as dist
from torch.utils.data import random_split


def split_dataset(dataset, ratio):
    n_train = int(ratio * len(dataset))
    return random_split(dataset, [n_train, len(dataset) - n_train])  # expect: FS110


def is_main():
    return not dist.is_initialized() or dist.get_rank() == 0
