import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train(model, dataset, optimizer, max_steps):
    dist.init_process_group("nccl")
    loader = DataLoader(dataset, batch_size=8, sampler=DistributedSampler(dataset))
    data_iter = iter(loader)
    step = 0
    while True:  # expect: FS101
        try:
            batch = next(data_iter)
        except StopIteration:
            data_iter = iter(loader)
            batch = next(data_iter)
        optimizer.zero_grad()
        model(batch).mean().backward()
        optimizer.step()
        step += 1
        if step >= max_steps:
            break
