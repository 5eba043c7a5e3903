# A generic trainer picks its validation through an attribute; the results it returns are
# all-reduced beside the call, with the padded repeats in them.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class DDPTrainer:
    def __init__(self, model, train_set, val_set, validate_fn=None):
        self.model = model
        self.train_set = train_set
        self.val_set = val_set
        self.validate_fn = validate_fn or self._default_validate

    def _default_validate(self, model, loader):
        correct = total = 0
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
            total += len(y)
        return correct, total

    def run(self, rank, world, epochs):
        dist.init_process_group("gloo", rank=rank, world_size=world)
        train_sampler = DistributedSampler(self.train_set)
        val_sampler = DistributedSampler(self.val_set, shuffle=False)  # expect: FS109
        train_loader = DataLoader(self.train_set, batch_size=8, sampler=train_sampler)
        val_loader = DataLoader(self.val_set, batch_size=8, sampler=val_sampler)
        for epoch in range(epochs):
            train_sampler.set_epoch(epoch)
            for x, y in train_loader:
                self.model(x).sum().backward()
            correct, total = self.validate_fn(self.model, val_loader)
            metrics = torch.tensor([correct, total], dtype=torch.float32)
            dist.all_reduce(metrics)
            print(metrics[0] / metrics[1])
