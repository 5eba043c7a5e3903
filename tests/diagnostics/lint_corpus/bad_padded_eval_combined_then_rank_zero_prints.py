# Every rank validates and the sums are all-reduced; only the print is on rank 0.
# The padded samples of the last ranks count twice in the printed mean.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(flags, model, optimizer, train_set, val_set):
    dist.init_process_group("nccl")
    train_sampler = DistributedSampler(train_set)
    valid_sampler = DistributedSampler(val_set)  # expect: FS109
    train_loader = DataLoader(train_set, sampler=train_sampler, batch_size=flags.batch_size)
    validation_loader = DataLoader(val_set, sampler=valid_sampler, batch_size=flags.batch_size)
    for epoch in range(flags.epochs):
        train_sampler.set_epoch(epoch)
        for images, _ in train_loader:
            optimizer.zero_grad()
            model(images).mean().backward()
            optimizer.step()
        totals = torch.zeros(2)
        with torch.no_grad():
            for images, _ in validation_loader:
                totals += torch.tensor([model(images).mean().item(), 1.0])
        dist.all_reduce(totals)
        if flags.local_rank == 0:
            print(epoch, (totals[0] / totals[1]).item())
