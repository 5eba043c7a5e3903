"""Prompts from a loader a nested helper builds and returns: the script prepares what
the helper gives, so accelerate shards it."""

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader


def main(prompts: list[str], model: torch.nn.Module) -> None:
    accelerator = Accelerator()
    optimizer = torch.optim.AdamW(model.parameters())

    def prompt_loader(data: list[str], batch_size: int) -> DataLoader:
        return DataLoader(data, batch_size=batch_size, shuffle=True)

    loader = prompt_loader(prompts, batch_size=8)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for batch in loader:
        loss = torch.stack([model(prompt) for prompt in batch]).mean()
        accelerator.backward(loss)
        optimizer.step()


if __name__ == "__main__":
    main(["1+1", "2+2"], torch.nn.Linear(1, 1))
