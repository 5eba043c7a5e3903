# The shuffling sampler is built inline in the helper's loader, and the loader reaches the
# epoch loop as a method's parameter (trainer.search(train_data, ...)): nothing sets its
# epoch, so every epoch repeats each rank's order.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class Trainer:
    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer

    def search(self, train_ds, total_epoch):
        for epoch in range(total_epoch):  # expect: FS101
            for step, (inputs, target) in enumerate(train_ds):
                self.optimizer.zero_grad()
                self.model(inputs, target).backward()
                self.optimizer.step()


def prepare_dataloader(dataset, batch_size):
    return DataLoader(dataset, batch_size=batch_size, sampler=DistributedSampler(dataset))


def main(rank, world_size, train_set, model, optimizer):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    train_data = prepare_dataloader(train_set, 64)
    trainer = Trainer(model, optimizer)
    trainer.search(train_data, 300)
