"""The list unpacked into prepare holds only the validation loader: the training ones are
read whole by every process."""

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader


def main(datasets, valid_set, model, optim, sched):
    accelerator = Accelerator()
    train_dataloaders = []
    for ds in datasets:
        train_dataloaders.append(DataLoader(ds, batch_size=4, shuffle=True))  # expect: FS103
    valid_dataloader = DataLoader(valid_set, batch_size=4)
    all_dataloaders = [valid_dataloader]
    model, optim, *all_dataloaders, sched = accelerator.prepare(
        model, optim, *all_dataloaders, sched
    )
    for loader in train_dataloaders:
        for batch in loader:
            accelerator.backward(model(batch).sum())


if __name__ == "__main__":
    main([torch.randn(16, 4)], torch.randn(8, 4), torch.nn.Linear(4, 1), None, None)
