"""Run by plain python on every README line: the helper it imports runs in this one process."""

import torch
from model.evaluator import QAEvaluator

if __name__ == "__main__":
    data = torch.randn(50, 4)
    print(QAEvaluator(torch.nn.Linear(4, 1)).score(data))
