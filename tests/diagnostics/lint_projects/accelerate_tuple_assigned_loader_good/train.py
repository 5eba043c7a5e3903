"""The model and the loader are built in one tuple assignment from two helpers; the
script prepares the loader the second helper returns, so accelerate shards it."""

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader


def make_model() -> torch.nn.Module:
    return torch.nn.Linear(4, 2)


def make_data(batch_size: int) -> DataLoader:
    return DataLoader(torch.randn(100, 4), batch_size=batch_size, shuffle=True)


if __name__ == "__main__":
    model, dataloader = make_model(), make_data(8)
    accelerator = Accelerator()
    optimizer = torch.optim.AdamW(model.parameters())
    model, optimizer, dataloader = accelerator.prepare(model, optimizer, dataloader)
    for batch in dataloader:
        accelerator.backward(model(batch).sum())
        optimizer.step()
