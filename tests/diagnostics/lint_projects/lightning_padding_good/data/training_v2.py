# A second version of the data module, of the same name, that no Trainer runs.
import lightning as L
from torch.utils.data import DataLoader


class StructureDataModule(L.LightningDataModule):
    def __init__(self, train_set, val_set):
        super().__init__()
        self.train_set, self.val_set = train_set, val_set

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=8, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=1, shuffle=False)
