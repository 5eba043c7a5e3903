# The same data module, and the model logs the validation loss with sync_dist=True:
# the ranks' means are averaged, the padded samples among them.
import lightning as L
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class PoseData(L.LightningDataModule):
    def __init__(self, train_set, val_set, batch_size):
        super().__init__()
        self.train_set, self.val_set, self.batch_size = train_set, val_set, batch_size

    def _dataloader(self, train):
        dataset = self.train_set if train else self.val_set
        sampler = DistributedSampler(dataset) if dist.is_initialized() else None  # expect: FS109
        return DataLoader(dataset, batch_size=self.batch_size, sampler=sampler, shuffle=False)

    def train_dataloader(self):
        return self._dataloader(True)

    def val_dataloader(self):
        return self._dataloader(False)

    def test_dataloader(self):
        return self.val_dataloader()
