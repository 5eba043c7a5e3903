"""A trainer class keeps the loaders its train_model is handed and prepares them there."""

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader


class Trainer:
    def __init__(self, net, config):
        self.net, self.config = net, config

    def evaluation(self, epoch):
        score = torch.zeros(())
        with torch.no_grad():
            for inputs, labels in self.vali_loader:
                loss = torch.nn.functional.cross_entropy(self.net(inputs), labels)
                score = (self.net(inputs).argmax(1) == labels).float().mean()
            gathered_loss = self.accelerator.gather_for_metrics(loss)
            gathered_score = self.accelerator.gather_for_metrics(score)
        return torch.mean(gathered_loss), torch.mean(gathered_score)

    def train_model(
        self,
        epoch: int,
        train_loader: DataLoader,
        vali_loader: DataLoader | None = None,
        accelerator: Accelerator | None = None,
    ):
        self.accelerator = accelerator
        self.train_loader, self.vali_loader = train_loader, vali_loader
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.1)
        self.net, self.optimizer, self.train_loader, self.vali_loader = accelerator.prepare(
            self.net, self.optimizer, self.train_loader, self.vali_loader
        )
        for i in range(epoch):
            for inputs, labels in self.train_loader:
                loss = torch.nn.functional.cross_entropy(self.net(inputs), labels)
                accelerator.backward(loss)
                self.optimizer.step()
                self.optimizer.zero_grad()
            accelerator.print(i, self.evaluation(i))
