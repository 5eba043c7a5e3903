# A seeded generator is built for the split and never handed to it: random_split draws
# from torch's global generator, which nothing seeds, so every rank splits differently.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, random_split


def main(dataset, model, epochs):
    dist.init_process_group("nccl")
    seed = torch.Generator().manual_seed(42)
    train_size = int(len(dataset) * 0.8)
    train_set, val_set = random_split(  # expect: FS110
        dataset, [train_size, len(dataset) - train_size]
    )
    sampler = DistributedSampler(train_set, shuffle=True)
    loader = DataLoader(train_set, sampler=sampler, batch_size=8)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            model(batch).sum().backward()
    return seed, val_set
