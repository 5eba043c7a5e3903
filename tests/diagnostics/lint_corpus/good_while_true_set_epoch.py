import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train(model, dataset, optimizer, max_steps):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=8, sampler=sampler)
    epoch = 0
    data_iter = iter(loader)
    for step in range(max_steps):
        try:
            batch = next(data_iter)
        except StopIteration:
            epoch += 1
            sampler.set_epoch(epoch)
            data_iter = iter(loader)
            batch = next(data_iter)
        optimizer.zero_grad()
        model(batch).mean().backward()
        optimizer.step()
