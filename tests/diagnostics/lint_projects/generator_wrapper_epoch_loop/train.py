# Steps, not epochs: the while loop restarts the loader through the tree's timing wrapper,
# and nothing sets the sampler's epoch, so every pass repeats each rank's order.
import torch
import torch.distributed as dist
from utils import create_dist_dataloader, time_iter


def main(model, dataset, total_steps):
    dist.init_process_group("nccl")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    train_loader = create_dist_dataloader(dataset, rank, world_size)
    optimizer = torch.optim.AdamW(model.parameters())
    step = 0
    while step < total_steps:  # expect: FS101
        for _, batch in time_iter(train_loader):
            model(batch).sum().backward()
            optimizer.step()
            step += 1
