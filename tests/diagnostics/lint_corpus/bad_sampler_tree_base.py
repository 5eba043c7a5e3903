"""Data samplers whose base is imported from the tree: they iterate, or go to a loader."""

import torch
from torch.utils.data import DataLoader

from .base import BaseIndexSampler, ProposalSampler


class ShuffledSampler(BaseIndexSampler):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(torch.randperm(self.n).tolist())  # expect: FS105


class ChunkSampler(ProposalSampler):
    def order(self, n):
        return torch.randperm(n).tolist()  # expect: FS105


def build(dataset):
    torch.distributed.init_process_group("gloo")
    return DataLoader(dataset, sampler=ChunkSampler())
