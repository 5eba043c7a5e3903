# The split sits under a data choice the script's own constant rules out ("mixed" is set,
# "simulated" is tested, and the last branch runs only for neither "mixed" nor "real"):
# no run draws it.
import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader

DATA_TYPE = "mixed"


def main(simulated, train_part, val_part, model):
    if DATA_TYPE == "simulated":
        n_train = int(0.8 * len(simulated))
        train_set, val_set = torch.utils.data.random_split(
            simulated, [n_train, len(simulated) - n_train]
        )
    elif DATA_TYPE in ("mixed", "real"):
        train_set, val_set = train_part, val_part
    else:
        train_set, val_set = torch.utils.data.random_split(simulated, [0.5, 0.5])
    trainer = pl.Trainer(accelerator="auto", devices="auto", max_epochs=100)
    trainer.fit(model, DataLoader(train_set, shuffle=True), DataLoader(val_set))
