# The loader is rebuilt at the top of every epoch with a project sampler that
# seeds its permutation from the epoch it is given: every epoch a new order.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Sampler


class DistributedSampler(Sampler):
    def __init__(self, dataset, epoch=0):
        self.n = len(dataset)
        self.rank, self.world = dist.get_rank(), dist.get_world_size()
        self.epoch = epoch

    def __iter__(self):
        g = torch.Generator()
        g.manual_seed(self.epoch)
        order = torch.randperm(self.n, generator=g).tolist()
        return iter(order[self.rank :: self.world])

    def __len__(self):
        return len(range(self.rank, self.n, self.world))


class Trainer:
    def __init__(self, dataset, model, optimizer, max_epoch):
        self.dataset, self.model, self.optim, self.max_epoch = dataset, model, optimizer, max_epoch

    def setup_loader(self, epoch):
        sampler = DistributedSampler(self.dataset, epoch=epoch)
        self.training_loader = DataLoader(self.dataset, batch_size=16, sampler=sampler)

    def train(self):
        dist.init_process_group("nccl")
        for epoch in range(self.max_epoch):
            self.setup_loader(epoch)
            for batch in self.training_loader:
                self.optim.zero_grad()
                self.model(batch).backward()
                self.optim.step()
