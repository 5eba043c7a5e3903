"""Evaluation, a method of Bridge: each rank reports its own share's loss, combined with none."""

import torch


def evaluate(self, eval_loader, mode="valid"):
    total = torch.zeros(())
    with torch.no_grad():
        for (batch,) in eval_loader:
            total += self.model(batch).sum()
    return total.item() / len(eval_loader)
