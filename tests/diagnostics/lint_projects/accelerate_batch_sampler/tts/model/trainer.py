from accelerate import Accelerator
from torch.utils.data import DataLoader, SequentialSampler

from tts.model.dataset import DynamicBatchSampler


class Trainer:
    def __init__(self, model, optimizer, epochs):
        self.accelerator = Accelerator()
        self.model, self.optimizer = self.accelerator.prepare(model, optimizer)
        self.epochs = epochs

    def train(self, train_dataset, resumable_with_seed=None):
        sampler = SequentialSampler(train_dataset)
        batch_sampler = DynamicBatchSampler(sampler, 38400, random_seed=resumable_with_seed)
        train_dataloader = DataLoader(train_dataset, batch_sampler=batch_sampler)
        train_dataloader = self.accelerator.prepare(train_dataloader)
        for epoch in range(self.epochs):
            self.model.train()
            # Set epoch for the batch sampler if it exists
            if hasattr(train_dataloader, "batch_sampler") and hasattr(  # expect: FS101
                train_dataloader.batch_sampler, "set_epoch"
            ):
                train_dataloader.batch_sampler.set_epoch(epoch)
            for batch in train_dataloader:
                self.accelerator.backward(self.model(batch))
                self.optimizer.step()
