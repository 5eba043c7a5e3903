"""Prompts read by every process: the loader never goes through accelerator.prepare."""

import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader


def main(prompts: list[str], model: torch.nn.Module) -> None:
    accelerator = Accelerator()
    optimizer = torch.optim.AdamW(model.parameters())
    model, optimizer = accelerator.prepare(model, optimizer)
    loader = DataLoader(prompts, batch_size=8, shuffle=True)  # expect: FS103
    buffer: list[torch.Tensor] = []
    for batch in loader:
        buffer.clear()
        for prompt in batch:
            buffer.append(model(prompt))
        steps = DataLoader(buffer, batch_size=2, shuffle=True)  # this rank's own rollouts
        for rows in steps:
            loss = torch.stack(rows).mean()
            accelerator.backward(loss)
            optimizer.step()


if __name__ == "__main__":
    main(["1+1", "2+2"], torch.nn.Linear(1, 1))
