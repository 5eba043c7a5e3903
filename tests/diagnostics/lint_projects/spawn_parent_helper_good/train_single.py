"""The same scorer, run by a one-process training script."""

import torch
from scoring import score_and_prune

if __name__ == "__main__":
    print(score_and_prune(torch.randn(256, 4), torch.nn.Linear(4, 1), 128))
