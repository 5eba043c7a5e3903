import torch
import torch.distributed as dist

from trainers.base import Trainer


class DistributedTrainer(Trainer):
    def __init__(self, model, train_loader, val_loader, num_epochs, world_size):
        super().__init__(
            model=model, train_loader=train_loader, val_loader=val_loader, num_epochs=num_epochs
        )
        self.world_size = world_size

    def train(self):
        for epoch in range(self.num_epochs):
            self.train_loader.sampler.set_epoch(epoch)
            for inputs, targets in self.train_loader:
                self.model(inputs, targets).backward()
            print(epoch, self.validate())

    def validate(self):
        correct = total = 0
        with torch.no_grad():
            for inputs, targets in self.val_loader:
                correct += (self.model(inputs).argmax(1) == targets).sum().item()
                total += len(targets)
        return self.aggregate_metric(100.0 * correct / total)

    def aggregate_metric(self, metric):
        value = torch.tensor(metric)
        dist.all_reduce(value, op=dist.ReduceOp.SUM)
        return (value / self.world_size).item()
