"""The trainer comes from configs/trainer/: one GPU, or the CPU (one device: Lightning's auto count there)."""

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


@hydra.main(config_path="configs", config_name="train", version_base=None)
def main(cfg):
    model = Regressor(hydra.utils.instantiate(cfg.net), cfg.train_set, cfg.val_set)
    trainer = hydra.utils.instantiate(cfg.trainer)
    trainer.fit(model)
