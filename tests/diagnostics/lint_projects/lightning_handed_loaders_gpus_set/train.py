"""Training on --gpus devices: the README runs four, so Lightning pads both evaluations."""

import argparse

import lightning as L
from model import PeptideModel
from torch.utils.data import DataLoader


def main(net, train_set, val_set, test_set):
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", default=1, type=int)
    parser.add_argument("--lr", default=1e-3, type=float)
    args = parser.parse_args()
    train_dl = DataLoader(train_set, batch_size=64, shuffle=True)
    val_dl = DataLoader(val_set, batch_size=64)  # expect: FS109
    test_dl = DataLoader(test_set, batch_size=64)  # expect: FS109
    model = PeptideModel(net)
    trainer = L.Trainer(
        accelerator="gpu",
        devices=args.gpus,
        strategy="ddp" if args.gpus > 1 else "auto",
    )
    trainer.fit(model, train_dl, val_dl)
    trainer.test(model, dataloaders=test_dl)


if __name__ == "__main__":
    main(None, None, None, None)
