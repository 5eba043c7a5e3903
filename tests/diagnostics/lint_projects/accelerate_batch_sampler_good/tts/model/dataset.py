import torch
from torch.utils.data import Sampler


class DynamicBatchSampler(Sampler[list[int]]):
    def __init__(self, sampler, frames_threshold, random_seed=None, drop_residual=False):
        self.sampler = sampler
        self.frames_threshold = frames_threshold
        self.batches = [[i] for i in sampler]
        self.random_seed = random_seed
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:
        """Sets the epoch for this sampler."""
        self.epoch = epoch

    def __iter__(self):
        if self.random_seed is not None:
            g = torch.Generator()
            g.manual_seed(self.random_seed + self.epoch)
            order = torch.randperm(len(self.batches), generator=g).tolist()
            return iter([self.batches[i] for i in order])
        return iter(self.batches)

    def __len__(self):
        return len(self.batches)
