"""Evaluation, a method of Bridge: the ranks' losses are all-gathered and averaged."""

import torch
import torch.distributed as dist


def evaluate(self, eval_loader, mode="valid"):
    total = torch.zeros(())
    with torch.no_grad():
        for (batch,) in eval_loader:
            total += self.model(batch).sum()
    gathered = [torch.zeros_like(total) for _ in range(dist.get_world_size())]
    dist.all_gather(gathered, total)
    return torch.stack(gathered).mean().item() / len(eval_loader)
