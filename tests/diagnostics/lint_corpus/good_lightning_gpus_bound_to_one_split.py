# The trainer's GPU count is bound to one (or none, on a CPU host): one process draws it.
import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, random_split


def train(dataset, model):
    num_workers, num_gpus = (4, 1) if torch.cuda.is_available() else (0, 0)
    trainer = pl.Trainer(max_epochs=100, gpus=num_gpus)
    n_train = int(len(dataset) * 0.95)
    train_set, val_set = random_split(dataset, [n_train, len(dataset) - n_train])
    trainer.fit(
        model,
        DataLoader(train_set, batch_size=8, num_workers=num_workers, drop_last=True),
        DataLoader(val_set, batch_size=8, num_workers=num_workers),
    )
