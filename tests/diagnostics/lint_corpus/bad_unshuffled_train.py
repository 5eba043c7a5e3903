import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train(model, train_dataset, optimizer, epochs):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(train_dataset, shuffle=False)  # expect: FS108
    loader = DataLoader(train_dataset, batch_size=32, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            model(x).sub(y).abs().mean().backward()
            optimizer.step()
