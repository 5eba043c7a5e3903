"""The data module draws its split in setup("fit") only, from the global generator."""

import lightning as L
from torch.utils.data import DataLoader, random_split


class VoxelData(L.LightningDataModule):
    def __init__(self, dataset, test_set=None, batch_size: int = 32):
        super().__init__()
        self.dataset, self.test_set, self.batch_size = dataset, test_set, batch_size

    def setup(self, stage: str):
        if stage == "fit":
            n = len(self.dataset)
            parts = [n - n // 10, n // 10]
            self.train_set, self.val_set = random_split(self.dataset, parts)  # expect: FS110

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True)

    def test_dataloader(self):
        return DataLoader(self.test_set, batch_size=self.batch_size)

    def predict_dataloader(self):
        return DataLoader(self.test_set, batch_size=self.batch_size)
