# A batch sampler of the project's own, derived from DistributedSampler and seeded by
# self.seed + self.epoch, handed to the training loader as its batch_sampler: Lightning
# sets the epoch of loader.sampler and of loader.batch_sampler.sampler only, so every
# epoch draws epoch 0's batches.
import lightning as L
import torch
from torch.utils.data import DataLoader, DistributedSampler


class GroupedBatches(DistributedSampler):
    def __init__(self, dataset, batch_size, shuffle=True):
        super().__init__(dataset, shuffle=shuffle)
        self.batch_size = batch_size

    def __iter__(self):
        g = torch.Generator()
        g.manual_seed(self.seed + self.epoch)
        order = torch.randperm(len(self.dataset), generator=g).tolist()
        mine = order[self.rank :: self.num_replicas]
        for start in range(0, len(mine) - self.batch_size + 1, self.batch_size):
            yield mine[start : start + self.batch_size]

    def __len__(self):
        return len(self.dataset) // (self.num_replicas * self.batch_size)


class GroupedData(L.LightningDataModule):
    def __init__(self, train_set, val_set, batch_size):
        super().__init__()
        self.train_set, self.val_set, self.batch_size = train_set, val_set, batch_size

    def train_dataloader(self):
        train_sampler = GroupedBatches(self.train_set, self.batch_size)  # expect: FS101
        return DataLoader(self.train_set, batch_sampler=train_sampler, num_workers=4)

    def val_dataloader(self):
        val_sampler = GroupedBatches(self.val_set, self.batch_size, shuffle=False)
        return DataLoader(self.val_set, batch_sampler=val_sampler, num_workers=4)
