# One process on each of five nodes is five ranks: the training loader without a
# sampler reads the whole set on every rank, and the padded validation shares are
# summed across them.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(model, train_set, val_set, epochs):
    dist.init_process_group("nccl")
    train_loader = DataLoader(train_set, batch_size=1, shuffle=True)  # expect: FS103
    val_sampler = DistributedSampler(val_set, shuffle=False)  # expect: FS109
    val_loader = DataLoader(val_set, batch_size=1, sampler=val_sampler)
    for epoch in range(epochs):
        for tokens, targets in train_loader:
            model(tokens, targets).backward()
        stats = torch.zeros(2)
        with torch.no_grad():
            for tokens, targets in val_loader:
                stats += torch.tensor([model(tokens, targets).item(), 1.0])
        dist.all_reduce(stats)
        print(epoch, (stats[0] / stats[1]).item())
