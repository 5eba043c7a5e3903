"""Prompts from a loader a nested helper builds and returns: the script prepares the
model and the optimizer only, so every process reads every prompt."""

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader


def main(prompts: list[str], model: torch.nn.Module) -> None:
    accelerator = Accelerator()
    optimizer = torch.optim.AdamW(model.parameters())

    def prompt_loader(data: list[str], batch_size: int) -> DataLoader:
        return DataLoader(data, batch_size=batch_size, shuffle=True)  # expect: FS103

    loader = prompt_loader(prompts, batch_size=8)
    model, optimizer = accelerator.prepare(model, optimizer)
    for batch in loader:
        loss = torch.stack([model(prompt) for prompt in batch]).mean()
        accelerator.backward(loss)
        optimizer.step()


if __name__ == "__main__":
    main(["1+1", "2+2"], torch.nn.Linear(1, 1))
