# The same micro-batch restarts, and no loop around them sets the epoch: every
# pass over the data repeats each rank's order.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(model, dataset, max_steps, grad_accum):
    dist.init_process_group("nccl")
    train_sampler = DistributedSampler(dataset, shuffle=True)
    train_loader = DataLoader(dataset, batch_size=8, sampler=train_sampler)
    data_iter = iter(train_loader)
    for step in range(max_steps):
        for _ in range(grad_accum):  # expect: FS101
            try:
                x, y = next(data_iter)
            except StopIteration:
                data_iter = iter(train_loader)
                x, y = next(data_iter)
            model(x, y).backward()
