# A Lightning data module that names a sampler variable and binds it only to
# None: DataLoader(sampler=None, shuffle=True) builds, and under DDP Lightning
# puts in its own DistributedSampler. No sampler is given beside shuffle=True.
import lightning as L
from torch.utils.data import DataLoader


class PianoData(L.LightningDataModule):
    def __init__(self, datasets, batch):
        super().__init__()
        self.datasets, self.batch = datasets, batch

    def train_dataloader(self):
        sampler = None
        return {
            str(i): DataLoader(dataset, batch_size=self.batch, sampler=sampler, shuffle=True)
            for i, dataset in enumerate(self.datasets)
        }
