import torch


class Trainer:
    def __init__(self, model, train_dataloader, valid_dataloader, epochs, distributed):
        self.model = model
        self.train_dataloader = train_dataloader
        self.valid_dataloader = valid_dataloader
        self.epochs = epochs
        self.distributed = distributed

    def train(self):
        for epoch in range(self.epochs):
            if self.distributed:
                self.train_dataloader.sampler.set_epoch(epoch)
            for data, target in self.train_dataloader:
                self.model(data, target).backward()
            print(epoch, self.get_valid_loss().item())

    def get_valid_loss(self):
        total = torch.zeros(1)
        with torch.no_grad():
            for data, target in self.valid_dataloader:
                total += self.model(data, target)
        return total / len(self.valid_dataloader)
