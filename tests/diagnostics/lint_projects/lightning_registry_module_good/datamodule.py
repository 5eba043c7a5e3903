# The validation hook passes an exact sampler to the helper (Lightning keeps it): nothing
# is padded.
import pytorch_lightning as pl
import torch.utils.data as torchdata

import fairshard


class KittiDataModule(pl.LightningDataModule):
    def __init__(self, sets, batch_size):
        super().__init__()
        self.sets, self.batch_size = sets, batch_size

    def dataloader(self, stage, shuffle=False, num_workers=None, sampler=None):
        return torchdata.DataLoader(
            self.sets[stage],
            batch_size=self.batch_size,
            shuffle=shuffle or (stage == "train"),
            sampler=sampler,
        )

    def train_dataloader(self, **kwargs):
        return self.dataloader("train", **kwargs)

    def val_dataloader(self, **kwargs):
        sampler = fairshard.DistributedEvalSampler(self.sets["val"])
        return self.dataloader("val", sampler=sampler, **kwargs)
