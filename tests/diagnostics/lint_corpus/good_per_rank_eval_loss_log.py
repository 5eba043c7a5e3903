"""Each rank appends its own average validation loss to a log file named for it.

Nothing merges the ranks' logs: a rank's share of a padded sampler holds no
sample twice, so each line is an honest loss over that rank's share.
"""

import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(model, train_set, eval_set, out_dir, num_epochs=3):
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    world_size = dist.get_world_size()
    sampler = DistributedSampler(train_set)
    loader = DataLoader(train_set, batch_size=8, sampler=sampler)
    eval_loader = DataLoader(eval_set, batch_size=8, sampler=DistributedSampler(eval_set))
    eval_loss_file = f"eval_loss_log_{world_size}_{local_rank}.txt"
    for epoch in range(num_epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            model(batch).mean().backward()
        eval_loss = 0.0
        with torch.no_grad():
            for batch in eval_loader:
                eval_loss += model(batch).mean().item()
        with open(os.path.join(out_dir, eval_loss_file), "a") as f:
            f.write(f"{epoch},{eval_loss / len(eval_loader):.4f}\n")
