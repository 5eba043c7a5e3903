# A data module that builds its own DistributedSampler for every split; the model
# logs each rank's validation loss without sync_dist: each rank reports its own
# share, and rank 0's share holds no padded sample, so no repeat is counted.
import lightning as L
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class PoseData(L.LightningDataModule):
    def __init__(self, train_set, val_set, batch_size):
        super().__init__()
        self.train_set, self.val_set, self.batch_size = train_set, val_set, batch_size

    def _dataloader(self, train):
        dataset = self.train_set if train else self.val_set
        sampler = DistributedSampler(dataset) if dist.is_initialized() else None
        return DataLoader(dataset, batch_size=self.batch_size, sampler=sampler, shuffle=False)

    def train_dataloader(self):
        return self._dataloader(True)

    def val_dataloader(self):
        return self._dataloader(False)

    def test_dataloader(self):
        return self.val_dataloader()
