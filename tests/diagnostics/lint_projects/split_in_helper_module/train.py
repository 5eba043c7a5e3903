# torchrun runs this on every rank; the helper's split is drawn from each rank's own
# torch generator, which nothing seeds: the ranks keep different training sets.
import torch.distributed as dist
from data_loader import build_loaders


def main(dataset, epochs, step):
    dist.init_process_group("nccl")
    train_loader, val_loader = build_loaders(dataset, 16)
    for epoch in range(epochs):
        train_loader.sampler.set_epoch(epoch)
        for batch in train_loader:
            step(batch)
