"""Scores every sample; each rank that calls it reads the whole set."""

import torch
from torch.utils.data import DataLoader


def score_and_prune(dataset, model, keep):
    loader = DataLoader(dataset, batch_size=64, shuffle=True)  # expect: FS103
    scores = torch.cat([model(x).squeeze(-1) for x in loader])
    return torch.argsort(scores)[:keep]
