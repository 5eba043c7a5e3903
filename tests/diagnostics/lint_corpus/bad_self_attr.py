import torch
from torch.utils.data import DataLoader, DistributedSampler


class Trainer:
    def __init__(self, model, dataset, cfg):
        self.model = model
        self.cfg = cfg
        self.train_sampler = DistributedSampler(dataset)
        self.train_loader = DataLoader(dataset, batch_size=cfg.bs, sampler=self.train_sampler)
        self.optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr)

    def fit(self):
        for epoch in range(self.cfg.epochs):  # expect: FS101
            for batch in self.train_loader:
                self.optimizer.zero_grad()
                self.model(batch).sum().backward()
                self.optimizer.step()
