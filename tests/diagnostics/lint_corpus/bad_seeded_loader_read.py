# The same seed per rank, and the validation iterator is advanced: each rank
# draws its own order from its own seed.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class Trainer:
    def __init__(self, rank, train_set, val_set):
        torch.manual_seed(42 + rank)  # expect: FS104
        dist.init_process_group("gloo")
        sampler = DistributedSampler(train_set, seed=0)
        self.train_loader = DataLoader(train_set, sampler=sampler, batch_size=8)
        self.sampler = sampler
        self.val_loader = DataLoader(val_set, batch_size=8, shuffle=True)
        self.val_iter = iter(self.val_loader)

    def validate(self):
        return next(self.val_iter)
