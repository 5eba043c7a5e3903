# The same split under a trainer built for one device: one process draws it once.
import pytorch_lightning as pl
from torch.utils.data import DataLoader, random_split


def main(dataset, model):
    n_val = len(dataset) // 10
    train_set, val_set = random_split(dataset, [len(dataset) - n_val, n_val])
    trainer = pl.Trainer(accelerator="gpu", devices=1, max_epochs=20)
    trainer.fit(
        model,
        DataLoader(train_set, batch_size=32, shuffle=True),
        DataLoader(val_set, batch_size=64),
    )
