# strategy="ddp" reruns this script in each process whatever the Lightning release: each
# draws its own split, though the trainer's device count comes from an option.
import argparse

import pytorch_lightning as pl
from torch.utils.data import DataLoader, random_split


def main(dataset, model):
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", type=int)
    args = parser.parse_args()
    n_val = len(dataset) // 10
    train_set, val_set = random_split(dataset, [len(dataset) - n_val, n_val])  # expect: FS110
    trainer = pl.Trainer(gpus=args.gpus, strategy="ddp", max_epochs=20)
    trainer.fit(
        model,
        DataLoader(train_set, batch_size=32, shuffle=True),
        DataLoader(val_set, batch_size=64),
    )
