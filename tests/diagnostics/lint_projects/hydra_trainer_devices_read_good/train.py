"""A Hydra config's trainer group read entry by entry: one device in every trainer file."""

import hydra
import lightning as L
from torch.utils.data import DataLoader


class Regressor(L.LightningModule):
    def __init__(self, net, train_set, val_set):
        super().__init__()
        self.net, self.train_set, self.val_set = net, train_set, val_set

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=4, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=1)

    def validation_step(self, batch, batch_idx):
        self.log("val/mae", (self.net(batch[0]) - batch[1]).abs().mean(), sync_dist=True)


@hydra.main(config_path="configs", config_name="config", version_base=None)
def main(config):
    model = Regressor(hydra.utils.instantiate(config.net), config.train_set, config.val_set)
    trainer = L.Trainer(
        max_epochs=int(config.trainer.max_epochs),
        accelerator=str(config.trainer.accelerator),
        devices=int(config.trainer.devices),
    )
    trainer.fit(model)
