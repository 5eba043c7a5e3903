import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def build_loaders(dataset):
    sampler = DistributedSampler(dataset)
    train_loader = DataLoader(dataset, batch_size=32, sampler=sampler)
    return train_loader


def main(dataset, model, epochs):
    dist.init_process_group("nccl")
    # not prepared: the loop below must call set_epoch itself
    train_loader = build_loaders(dataset)
    for epoch in range(epochs):  # expect: FS101
        for batch in train_loader:
            model(batch)
