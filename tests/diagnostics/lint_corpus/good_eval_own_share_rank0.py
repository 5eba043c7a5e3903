# Padded evaluation sampler, but nothing combines the ranks: each rank averages the loss of
# its own share (padding never repeats a sample within one rank) and rank 0 reports its own.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def evaluate(model, valid_loader):
    total, steps = 0.0, 0
    with torch.no_grad():
        for step, batch in enumerate(valid_loader):
            total += model(batch).mean().item()
            steps = step + 1
    return total / max(steps, 1)


def train_validate(model, optimizer, train_loader, valid_loader, epoch):
    train_loader.sampler.set_epoch(epoch)
    for batch in train_loader:
        optimizer.zero_grad()
        model(batch).mean().backward()
        optimizer.step()
    valid_loss = evaluate(model, valid_loader)
    dist.barrier()
    if dist.get_rank() == 0:
        print(f"epoch {epoch} valid loss {valid_loss:.4f}")


def main(model, optimizer, train_data, valid_data, epochs):
    train_loader = DataLoader(train_data, sampler=DistributedSampler(train_data), batch_size=8)
    valid_sampler = DistributedSampler(valid_data, shuffle=False)
    valid_loader = DataLoader(valid_data, sampler=valid_sampler, batch_size=8)
    for epoch in range(epochs):
        train_validate(model, optimizer, train_loader, valid_loader, epoch)
