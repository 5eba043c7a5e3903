import torch
from torch.utils.data import DataLoader, DistributedSampler


class Runner:
    def setup_data(self, dataset):
        self.sampler = DistributedSampler(dataset, seed=self.seed)
        self.loader = DataLoader(dataset, sampler=self.sampler, batch_size=16)

    def train_epoch(self):
        for batch in self.loader:
            self.step(batch)

    def step(self, batch):
        self.model(batch).mean().backward()

    def run(self):
        torch.distributed.init_process_group("gloo")
        for epoch in range(self.max_epochs):  # expect: FS101
            self.train_epoch()
