# A seed per rank before a shuffling validation loader that nothing reads (its
# iterator is made and never advanced): no order is drawn from the seed.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class Trainer:
    def __init__(self, rank, train_set, val_set):
        torch.manual_seed(42 + rank)
        dist.init_process_group("gloo")
        sampler = DistributedSampler(train_set, seed=0)
        self.train_loader = DataLoader(train_set, sampler=sampler, batch_size=8)
        self.sampler = sampler
        self.val_loader = DataLoader(val_set, batch_size=8, shuffle=True)
        self.val_iter = iter(self.val_loader)

    def train(self, model, epochs):
        for epoch in range(epochs):
            self.sampler.set_epoch(epoch)
            for batch in self.train_loader:
                model(batch).sum().backward()
