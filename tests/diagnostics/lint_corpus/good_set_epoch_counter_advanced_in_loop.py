# The epoch counter is advanced inside the loop, and the trainer's own epoch attribute by
# another method: each pass hands set_epoch a new value.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train(model, optimizer, dataset, epochs):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, sampler=sampler, batch_size=32)
    epoch = 0
    while epoch < epochs:
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            model(x, y).backward()
            optimizer.step()
        epoch += 1


class Runner:
    def __init__(self, model, optimizer, dataset):
        dist.init_process_group("nccl")
        self.model, self.optimizer, self.epoch = model, optimizer, 0
        self.sampler = DistributedSampler(dataset, shuffle=True)
        self.loader = DataLoader(dataset, sampler=self.sampler, batch_size=32)

    def advance(self):
        self.epoch += 1

    def run(self, epochs):
        for _ in range(epochs):
            self.sampler.set_epoch(self.epoch)
            for x, y in self.loader:
                self.optimizer.zero_grad()
                self.model(x, y).backward()
                self.optimizer.step()
            self.advance()
