# The LSF job runs the script as one process: the padded sampler repeats
# nothing.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(model, train_set, val_set, epochs):
    dist.init_process_group("nccl")
    train_sampler = DistributedSampler(train_set, shuffle=True)
    val_sampler = DistributedSampler(val_set, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=4, sampler=train_sampler)
    val_loader = DataLoader(val_set, batch_size=4, sampler=val_sampler)
    for epoch in range(epochs):
        train_sampler.set_epoch(epoch)
        for x, y in train_loader:
            model(x, y).backward()
        val_loss = torch.zeros(1)
        with torch.no_grad():
            for x, y in val_loader:
                val_loss += model(x, y)
        dist.reduce(val_loss, dst=0)
        if dist.get_rank() == 0:
            print(epoch, val_loss.item() / len(val_set))
