# The seeded generator is handed to the split: every rank draws the same split.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, random_split


def main(dataset, model, epochs):
    dist.init_process_group("nccl")
    seed = torch.Generator().manual_seed(42)
    train_size = int(len(dataset) * 0.8)
    train_set, val_set = random_split(
        dataset, [train_size, len(dataset) - train_size], generator=seed
    )
    sampler = DistributedSampler(train_set, shuffle=True)
    loader = DataLoader(train_set, sampler=sampler, batch_size=8)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            model(batch).sum().backward()
    return seed, val_set
