# Validation runs on rank 0 alone (inside `if local_rank is 0:`): nothing is
# combined (a collective there would hang the other ranks), and rank 0's share
# of the padded sampler holds no repeated sample, which go to the last ranks.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(flags, model, optimizer, train_set, val_set):
    dist.init_process_group("nccl")
    train_sampler = DistributedSampler(train_set)
    valid_sampler = DistributedSampler(val_set)
    train_loader = DataLoader(train_set, sampler=train_sampler, batch_size=flags.batch_size)
    validation_loader = DataLoader(val_set, sampler=valid_sampler, batch_size=flags.batch_size)
    for epoch in range(flags.epochs):
        train_sampler.set_epoch(epoch)
        for images, _ in train_loader:
            optimizer.zero_grad()
            model(images).mean().backward()
            optimizer.step()
        if epoch % flags.eval_every == 0 and flags.local_rank is 0:  # noqa: F632 (as written)
            errors, count = 0.0, 0
            with torch.no_grad():
                for images, _ in validation_loader:
                    errors += model(images).mean().item()
                    count += 1
            print(epoch, errors / count)
