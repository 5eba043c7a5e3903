# A dict holds the training loader (its epoch set) and a validation loader under "val":
# the validation entry is read every epoch in a fixed order, which is no pitfall.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(rank, world_size, train_set, val_set, epochs, step, score):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    train_sampler = DistributedSampler(train_set)
    loaders = {"train": DataLoader(train_set, batch_size=8, sampler=train_sampler)}
    loaders["val"] = DataLoader(val_set, batch_size=8)
    for epoch in range(epochs):
        train_sampler.set_epoch(epoch)
        for batch in loaders["train"]:
            step(batch)
        for batch in loaders["val"]:
            score(batch)
