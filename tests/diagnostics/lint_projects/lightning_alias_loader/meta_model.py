# The loader hooks build torch_geometric's DataLoader under another name; Lightning rebuilds
# it with a padded DistributedSampler under DDP.
import pytorch_lightning as pl
from torch_geometric.data import DataLoader as GraphDataLoader


class MetaModel(pl.LightningModule):
    def __init__(self, train_set, val_set, test_set):
        super().__init__()
        self.train_set, self.val_set, self.test_set = train_set, val_set, test_set

    def train_dataloader(self):
        return GraphDataLoader(self.train_set, batch_size=16, shuffle=True)

    def test_dataloader(self):
        return GraphDataLoader(self.test_set, batch_size=1, shuffle=False)  # expect: FS109

    def val_dataloader(self):
        return GraphDataLoader(self.val_set, batch_size=1, shuffle=False)  # expect: FS109
