import torch
from torch.utils.data import DataLoader, DistributedSampler

import fairshard


def train(model, train_set, val_set, optimizer, epochs):
    torch.distributed.init_process_group("nccl")
    sampler = DistributedSampler(train_set)
    train_loader = DataLoader(train_set, sampler=sampler, batch_size=32)
    val_loader = DataLoader(val_set, sampler=fairshard.DistributedEvalSampler(val_set))
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in train_loader:
            optimizer.zero_grad()
            model(x).sub(y).pow(2).mean().backward()
            optimizer.step()
        with torch.no_grad():
            for x, _ in val_loader:
                model(x)
