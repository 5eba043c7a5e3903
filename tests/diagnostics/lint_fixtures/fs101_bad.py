import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train(model, dataset, optimizer, epochs):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler)
    for _ in range(epochs):  # FS101: no set_epoch
        for batch in loader:
            optimizer.zero_grad()
            model(batch).sum().backward()
            optimizer.step()
