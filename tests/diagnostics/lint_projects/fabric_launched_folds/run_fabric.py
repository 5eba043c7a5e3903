"""Runs the k-fold training on a small generated set."""

import torch
from torch.utils.data import TensorDataset
from training import kfold


def make_model():
    model = torch.nn.Linear(4, 1)
    return model, torch.optim.SGD(model.parameters(), lr=0.01)


if __name__ == "__main__":
    kfold.train(TensorDataset(torch.randn(40, 4), torch.randn(40, 1)), make_model)
