# Two runner classes share their method names; each script calls one method of
# one class. Nothing in the tree calls set_epoch.
import torch
from torch.utils.data import DataLoader


class FrostRunner:
    def __init__(self, model, optimizer, train_loader: DataLoader, epochs):
        self.model, self.optimizer, self.epochs = model, optimizer, epochs
        self.train_loader = train_loader

    def train_step(self, progress):
        for images, labels in self.train_loader:
            self.optimizer.zero_grad()
            torch.nn.functional.cross_entropy(self.model(images), labels).backward()
            self.optimizer.step()

    def vertex_tar(self):
        for epoch in range(self.epochs):  # expect: FS101
            self.train_step(epoch)

    def edge_tar(self):
        for epoch in range(self.epochs):
            self.train_step(epoch)
