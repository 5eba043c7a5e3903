"""A probe on one process: the dispatcher's default builds a plain shuffling loader."""

import torch
from data import build_loader


def main(epochs):
    loader = build_loader(torch.randn(64, 3))
    model = torch.nn.Linear(3, 1)
    for _ in range(epochs):
        for batch in loader:
            model(batch).sum().backward()


if __name__ == "__main__":
    main(10)
