# DataParallel splits each batch over the GPUs of one process: the split is drawn once.
import pytorch_lightning as pl
from torch.utils.data import DataLoader, random_split


def main(dataset, model):
    n_val = len(dataset) // 10
    train_set, val_set = random_split(dataset, [len(dataset) - n_val, n_val])
    trainer = pl.Trainer(gpus=4, accelerator="dp", max_epochs=20)
    trainer.fit(
        model,
        DataLoader(train_set, batch_size=32, shuffle=True),
        DataLoader(val_set, batch_size=64),
    )
