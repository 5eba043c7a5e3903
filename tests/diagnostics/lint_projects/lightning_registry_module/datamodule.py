# The loader hooks forward Lightning's (empty) **kwargs to one helper whose sampler
# parameter defaults to None: the validation loader names no sampler, and Lightning pads it.
import pytorch_lightning as pl
import torch.utils.data as torchdata


class KittiDataModule(pl.LightningDataModule):
    def __init__(self, sets, batch_size):
        super().__init__()
        self.sets, self.batch_size = sets, batch_size

    def dataloader(self, stage, shuffle=False, num_workers=None, sampler=None):
        return torchdata.DataLoader(  # expect: FS109
            self.sets[stage],
            batch_size=self.batch_size,
            shuffle=shuffle or (stage == "train"),
            sampler=sampler,
        )

    def train_dataloader(self, **kwargs):
        return self.dataloader("train", **kwargs)

    def val_dataloader(self, **kwargs):
        return self.dataloader("val", **kwargs)
