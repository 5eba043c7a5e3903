# torchrun runs this on every rank, each seeding torch alike before the helper splits:
# every rank keeps the same training set.
import torch
import torch.distributed as dist
from data_loader import build_loaders


def main(dataset, epochs, step, seed=0):
    dist.init_process_group("nccl")
    torch.manual_seed(seed)
    train_loader, val_loader = build_loaders(dataset, 16)
    for epoch in range(epochs):
        train_loader.sampler.set_epoch(epoch)
        for batch in train_loader:
            step(batch)
