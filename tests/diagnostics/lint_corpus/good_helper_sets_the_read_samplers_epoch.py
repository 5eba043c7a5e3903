# The same trainer; a helper called at the top of each epoch sets the main sampler's
# epoch, and the side helper keeps cycling its own.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class Trainer:
    def __init__(self, main_set, side_set, args):
        dist.init_process_group("nccl")
        self.args = args
        self.main_sampler = DistributedSampler(main_set, shuffle=True)
        self.main_loader = DataLoader(main_set, sampler=self.main_sampler)
        self.side_sampler = DistributedSampler(side_set, shuffle=True)
        self.side_loader = DataLoader(side_set, sampler=self.side_sampler)
        self.side_iter = iter(self.side_loader)

    def next_side(self):
        try:
            return next(self.side_iter)
        except StopIteration:
            self.side_sampler.set_epoch(self.side_sampler.epoch + 1)
            self.side_iter = iter(self.side_loader)
            return next(self.side_iter)

    def start_epoch(self, epoch):
        self.main_sampler.set_epoch(epoch)

    def train(self, model):
        for epoch in range(self.args.epochs):
            self.start_epoch(epoch)
            for batch in self.main_loader:
                model(batch, self.next_side()).sum().backward()
