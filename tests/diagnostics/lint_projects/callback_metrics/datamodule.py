# The test loader names no sampler: under DDP Lightning pads it.
from lightning.pytorch import LightningDataModule
from torch.utils.data import DataLoader


class ImageDataModule(LightningDataModule):
    def __init__(self, train_data, test_data):
        super().__init__()
        self.train_data, self.test_data = train_data, test_data

    def train_dataloader(self):
        return DataLoader(self.train_data, shuffle=True, batch_size=32)

    def test_dataloader(self):
        return DataLoader(self.test_data, shuffle=False, batch_size=32)  # expect: FS109
