"""Launched on four processes: the helper's gather keeps accelerate's fill here."""

import torch
from model.evaluator import QAEvaluator

if __name__ == "__main__":
    data = torch.randn(50, 4)
    print(QAEvaluator(torch.nn.Linear(4, 1)).score(data))
