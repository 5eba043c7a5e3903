# The test loader names an exact sampler (Lightning keeps it): each image counts once.
from lightning.pytorch import LightningDataModule
from torch.utils.data import DataLoader

import fairshard


class ImageDataModule(LightningDataModule):
    def __init__(self, train_data, test_data):
        super().__init__()
        self.train_data, self.test_data = train_data, test_data

    def train_dataloader(self):
        return DataLoader(self.train_data, shuffle=True, batch_size=32)

    def test_dataloader(self):
        sampler = fairshard.DistributedEvalSampler(self.test_data)
        return DataLoader(self.test_data, sampler=sampler, batch_size=32)
