# A data module whose training hook shuffles by itself; the Trainer shards it.
import torch
from pytorch_lightning import LightningDataModule
from torch.utils.data import DataLoader


class TextDataModule(LightningDataModule):
    def __init__(self, dataset, batch_size):
        super().__init__()
        self.dataset, self.batch_size = dataset, batch_size

    def prepare_data(self):
        if torch.distributed.is_initialized() and torch.distributed.get_rank() == 0:
            torch.distributed.barrier()

    def train_dataloader(self):
        return DataLoader(self.dataset, batch_size=self.batch_size, shuffle=True)
