# The same validation, whose sums each rank only prints: nothing is combined, so no repeat
# counts twice.
import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def main(model, train_ds, val_ds):
    rank = int(os.environ["RANK"])
    world_size = int(os.environ["WORLD_SIZE"])
    dist.init_process_group("nccl")
    for epoch in range(3):
        sampler = DistributedSampler(train_ds)
        sampler.set_epoch(epoch)
        for batch in DataLoader(train_ds, batch_size=4, sampler=sampler):
            model(batch).sum().backward()
        epoch_val_loss = 0
        val_steps = 0
        val_loader_safe = DataLoader(
            val_ds,
            batch_size=1,
            sampler=torch.utils.data.distributed.DistributedSampler(val_ds, shuffle=False)
            if world_size > 1
            else None,
        )
        with torch.no_grad():
            for v_batch in val_loader_safe:
                epoch_val_loss += model(v_batch).item()
                val_steps += 1
        print(rank, epoch_val_loss / max(1, val_steps))
