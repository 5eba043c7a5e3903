# The trainer keeps the loader handed to its constructor and iterates it in a method.
# It sets the epoch of the sampler it was handed.
import torch


class BaseTrainer:
    def __init__(self, config, model, train_loader, test_loader=None):
        self.config = config
        self.model = model
        self.train_loader = train_loader
        self.test_loader = test_loader

    def train(self):
        for epoch in range(self.config.epochs):
            self.train_loader.sampler.set_epoch(epoch)
            for batch in self.train_loader:
                self.model(batch).sum().backward()
            with torch.no_grad():
                self.model.train()
