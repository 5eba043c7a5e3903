# A loader built by one class, handed to a trainer's constructor, iterated in a method.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class TrainData:
    def __init__(self, dataset, batch_size):
        self.sampler = DistributedSampler(dataset)
        self.data = DataLoader(dataset, batch_size=batch_size, sampler=self.sampler)


class Trainer:
    def __init__(self, model, loader, epochs):
        self.model = model
        self.loader = loader
        self.epochs = epochs

    def fit(self):
        for _ in range(self.epochs):  # expect: FS101
            for batch in self.loader:
                self.model(batch).sum().backward()


def main(model, dataset):
    dist.init_process_group("nccl")
    Trainer(model, TrainData(dataset, 32).data, epochs=10).fit()
