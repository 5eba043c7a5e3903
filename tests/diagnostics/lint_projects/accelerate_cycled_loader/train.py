"""The script builds the accelerator and hands it to the data module, which prepares the
loaders; the script itself calls no ``prepare``."""

import torch
from accelerate import Accelerator
from data_module import DataModule


def main() -> None:
    accelerator = Accelerator()
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = DataModule(torch.randn(100, 4), batch_size=8)
    _, labelled, _ = data.setup(list(range(10)), accelerator=accelerator)
    for _ in range(100):
        loss = model(next(labelled)).sum()
        accelerator.backward(loss)
        optimizer.step()


if __name__ == "__main__":
    main()
