# The same provider builds only the training split through its own method
# (validation runs on rank 0 over a plain loader): nothing pads evaluation.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class DataProvider:
    def __init__(self, train_dataset, val_dataset, batch_size):
        self.num_replicas = dist.get_world_size()
        self.rank = dist.get_rank()
        self.train = self.build_dataloader(train_dataset, batch_size)
        self.valid = DataLoader(val_dataset, batch_size)

    def build_dataloader(self, dataset, batch_size):
        sampler = DistributedSampler(dataset, self.num_replicas, self.rank)
        return DataLoader(dataset, batch_size, sampler=sampler, drop_last=True)

    def set_epoch(self, epoch):
        self.train.sampler.set_epoch(epoch)
