"""The data helper: one loader, no sampler."""

import torch
from torch.utils.data import DataLoader, TensorDataset


def get_data(args):
    data = TensorDataset(torch.randn(args.n, 4))
    return DataLoader(data, batch_size=args.batch_size, shuffle=True)  # expect: FS103
