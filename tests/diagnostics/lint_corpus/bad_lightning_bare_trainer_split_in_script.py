# A trainer that names no devices takes every visible GPU (Lightning 2.x) and reruns this
# script in each process: each draws its own train/validation split, so they overlap.
import pytorch_lightning as pl
from torch.utils.data import DataLoader, random_split


def main(dataset, model):
    n_val = len(dataset) // 10
    train_set, val_set = random_split(dataset, [len(dataset) - n_val, n_val])  # expect: FS110
    trainer = pl.Trainer(max_epochs=20)
    trainer.fit(
        model,
        DataLoader(train_set, batch_size=32, shuffle=True),
        DataLoader(val_set, batch_size=64),
    )
