"""The loaders go to accelerator.prepare unpacked from a list: prepared, so sharded."""

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader


def main(datasets, valid_set, model, optim, sched):
    accelerator = Accelerator()
    train_dataloaders = []
    for ds in datasets:
        train_dataloaders.append(DataLoader(ds, batch_size=4, shuffle=True))
    valid_dataloader = DataLoader(valid_set, batch_size=4)
    all_dataloaders = [*train_dataloaders, valid_dataloader]
    model, optim, *all_dataloaders, sched = accelerator.prepare(
        model, optim, *all_dataloaders, sched
    )
    for loader in all_dataloaders[:-1]:
        for batch in loader:
            accelerator.backward(model(batch).sum())


if __name__ == "__main__":
    main([torch.randn(16, 4)], torch.randn(8, 4), torch.nn.Linear(4, 1), None, None)
