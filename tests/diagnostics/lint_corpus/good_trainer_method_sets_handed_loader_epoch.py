# The same trainer method sets the sampler's epoch before each pass; and a method of
# the same name on another object (a searcher the file does not define) runs no loop here.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class Trainer:
    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer

    def search(self, train_ds, total_epoch):
        for epoch in range(total_epoch):
            train_ds.sampler.set_epoch(epoch)
            for step, (inputs, target) in enumerate(train_ds):
                self.optimizer.zero_grad()
                self.model(inputs, target).backward()
                self.optimizer.step()


def prepare_dataloader(dataset, batch_size):
    return DataLoader(dataset, batch_size=batch_size, sampler=DistributedSampler(dataset))


def main(rank, world_size, train_set, model, optimizer, make_searcher):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    train_data = prepare_dataloader(train_set, 64)
    trainer = Trainer(model, optimizer)
    trainer.search(train_data, 300)
    searcher = make_searcher(model)
    searcher.search(train_data, 1)
