# The batch sampler is wrapped for several devices only (the name bound again under a
# branch), and the validation's proxy reads a sequential order that no epoch changes:
# nothing here is a batch sampler whose epoch Lightning leaves at 0 on a shipped run.
import lightning as L
import torch.utils.data as torch_data
from catalyst.data import DistributedSamplerWrapper
from ignite.distributed import DistributedProxySampler
from torch.utils.data import DataLoader


class SortedData(L.LightningDataModule):
    def __init__(self, train_set, val_set, batch_size, num_devices):
        super().__init__()
        self.train_set, self.val_set = train_set, val_set
        self.batch_size, self.num_devices = batch_size, num_devices

    def train_dataloader(self):
        sorter = torch_data.BatchSampler(
            torch_data.RandomSampler(self.train_set), self.batch_size, drop_last=True
        )
        if self.num_devices > 1:
            sorter = DistributedSamplerWrapper(sorter, shuffle=True)
        return DataLoader(self.train_set, batch_sampler=sorter)

    def val_dataloader(self):
        batch_sampler = DistributedProxySampler(
            torch_data.BatchSampler(
                torch_data.SequentialSampler(self.val_set), self.batch_size, drop_last=False
            )
        )
        return DataLoader(self.val_set, batch_sampler=batch_sampler)
