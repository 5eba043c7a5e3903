# A batch sampler of the project's own shuffles by the epoch its set_epoch
# stores; the loader goes through accelerator.prepare, whose BatchSamplerShard
# has no set_epoch and whose DataLoaderShard.set_epoch only reaches the wrapped
# batch sampler's .sampler: the epoch never reaches the batch sampler.
import random

from accelerate import Accelerator
from torch.utils.data import DataLoader, Sampler, SequentialSampler


class DynamicBatchSampler(Sampler):
    def __init__(self, sampler, frames_threshold, random_seed=None):
        self.sampler = sampler
        self.batches = [[i] for i in sampler]
        self.random_seed = random_seed
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        batches = list(self.batches)
        random.Random(self.random_seed + self.epoch).shuffle(batches)
        return iter(batches)

    def __len__(self):
        return len(self.batches)


class Trainer:
    def __init__(self, model, optimizer, scheduler):
        self.accelerator = Accelerator()
        self.model, self.optimizer = self.accelerator.prepare(model, optimizer)
        self.scheduler = scheduler

    def train(self, train_dataset, epochs, seed):
        sampler = SequentialSampler(train_dataset)
        batch_sampler = DynamicBatchSampler(sampler, 3000, random_seed=seed)
        train_dataloader = DataLoader(train_dataset, batch_sampler=batch_sampler)
        train_dataloader, self.scheduler = self.accelerator.prepare(
            train_dataloader, self.scheduler
        )
        for epoch in range(epochs):
            if hasattr(train_dataloader.batch_sampler, "set_epoch"):  # expect: FS101
                train_dataloader.batch_sampler.set_epoch(epoch)
            for batch in train_dataloader:
                self.accelerator.backward(self.model(batch))
                self.optimizer.step()


def main(model, optimizer, dataset, epochs):
    accelerator = Accelerator()
    loader = DataLoader(dataset, batch_sampler=DynamicBatchSampler(range(len(dataset)), 100, 0))
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for epoch in range(epochs):
        loader.set_epoch(epoch)  # expect: FS101
        for batch in loader:
            accelerator.backward(model(batch))
            optimizer.step()
