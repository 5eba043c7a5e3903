# The step loop sets the sampler's epoch on each step; the micro-batch loop inside
# it restarts the loader's iterator when it runs out, so each restart takes the
# epoch of its step: a new order.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(model, dataset, max_steps, grad_accum):
    dist.init_process_group("nccl")
    train_sampler = DistributedSampler(dataset, shuffle=True)
    train_loader = DataLoader(dataset, batch_size=8, sampler=train_sampler)
    data_iter = iter(train_loader)
    for step in range(max_steps):
        train_sampler.set_epoch(step)
        for _ in range(grad_accum):
            try:
                x, y = next(data_iter)
            except StopIteration:
                data_iter = iter(train_loader)
                x, y = next(data_iter)
            model(x, y).backward()
