# The split sits under the data choice the script makes, and a trainer naming every
# device reruns the script in each process: every rank draws a split of its own.
import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader

DATA_TYPE = "simulated"


def main(simulated, train_part, val_part, model):
    if DATA_TYPE == "simulated":
        n_train = int(0.8 * len(simulated))
        train_set, val_set = torch.utils.data.random_split(  # expect: FS110
            simulated, [n_train, len(simulated) - n_train]
        )
    elif DATA_TYPE in ("mixed", "real"):
        train_set, val_set = train_part, val_part
    trainer = pl.Trainer(accelerator="auto", devices="auto", max_epochs=100)
    trainer.fit(model, DataLoader(train_set, shuffle=True), DataLoader(val_set))
