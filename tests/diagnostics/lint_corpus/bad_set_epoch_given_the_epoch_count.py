# The loop hands set_epoch the number of epochs, not the epoch: every pass gets the same
# value, so every epoch repeats each rank's order (model.train() is nn.Module's, not the
# trainer's own train(self, args)).
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class Trainer:
    def __init__(self, model, optimizer, dataset):
        self.model, self.optimizer, self.dataset = model, optimizer, dataset

    def train(self, args):
        dist.init_process_group("nccl")
        sampler = DistributedSampler(self.dataset, shuffle=True)
        loader = DataLoader(self.dataset, sampler=sampler, batch_size=args.batch_size)
        model = self.model
        for epoch in range(args.epoch):  # expect: FS101
            sampler.set_epoch(args.epoch)
            model.train()
            self.one_pass(model, loader)

    def one_pass(self, model, loader):
        for x, y in loader:
            self.optimizer.zero_grad()
            model(x, y).backward()
            self.optimizer.step()
