import torch


class Trainer:
    def __init__(self, model, optimizer, train_loader, val_loader, rank, epochs):
        self.model, self.optimizer, self.rank, self.epochs = model, optimizer, rank, epochs
        self.train_loader = train_loader
        self.val_loader = val_loader

    def evaluate(self, data_loader):
        losses = []
        with torch.no_grad():
            for batch in data_loader:
                losses.append(self.model(batch).mean().item())
        return sum(losses) / max(len(losses), 1)

    def train(self):
        for epoch in range(self.epochs):
            if self.train_loader.sampler is not None:
                self.train_loader.sampler.set_epoch(epoch)
            for batch in self.train_loader:
                self.optimizer.zero_grad()
                self.model(batch).mean().backward()
                self.optimizer.step()
            val_loss = self.evaluate(self.val_loader)
            if self.rank == 0:
                print(epoch, val_loss)
