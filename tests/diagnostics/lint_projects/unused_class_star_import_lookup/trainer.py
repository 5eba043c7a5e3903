"""Two trainers: the registry's star import and globals() lookup may make either."""

import torch.distributed as dist
from torch.utils.data import DataLoader


class OldTrainer:
    def __init__(self, model, train_loader: DataLoader, epochs: int):
        self.model = model
        self.train_loader = train_loader
        self.epochs = epochs

    def _train_epoch(self, epoch):
        self.model.train()
        for images, labels in self.train_loader:
            self.model(images).sum().backward()

    def train(self):
        for epoch in range(self.epochs):  # expect: FS101
            self._train_epoch(epoch)
            dist.barrier()


class DetectionTrainer:
    def __init__(self, model, train_loader: DataLoader, epochs: int):
        self.model = model
        self.train_loader = train_loader
        self.epochs = epochs

    def _train_epoch(self, epoch):
        self.model.train()
        for images, labels in self.train_loader:
            self.model(images).sum().backward()

    def fit(self):
        for epoch in range(self.epochs):
            self.train_loader.sampler.set_epoch(epoch)
            self._train_epoch(epoch)
            dist.barrier()
