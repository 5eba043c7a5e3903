# A data module over the datasets of other data modules, with loaders of its own.
from datamodule import TextDataModule
from pytorch_lightning import LightningDataModule
from torch.utils.data import ConcatDataset, DataLoader, DistributedSampler


class MultiTaskDataModule(LightningDataModule):
    def __init__(self, datasets):
        super().__init__()
        self.parts = [TextDataModule(d, batch_size=32) for d in datasets]

    def train_dataloader(self):
        data = ConcatDataset([p.dataset for p in self.parts])
        return DataLoader(data, batch_size=32, sampler=DistributedSampler(data, shuffle=True))
