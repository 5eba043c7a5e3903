# Each rank scores its own share of the padded validation and prints it; the only write is
# a checkpoint dict of the model's weights, which is no per-rank result for a merge.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def trainer_fn(rank, world, model, train_set, val_set, epochs):
    dist.init_process_group("nccl", rank=rank, world_size=world)
    train_sampler = DistributedSampler(train_set)
    val_sampler = DistributedSampler(val_set, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=8, sampler=train_sampler)
    val_loader = DataLoader(val_set, batch_size=8, sampler=val_sampler)
    for epoch in range(epochs):
        train_sampler.set_epoch(epoch)
        for x, y in train_loader:
            model(x, y).backward()
        predictions = []
        for x, y in val_loader:
            predictions.append(model(x).argmax(1) == y)
        score = torch.cat(predictions).float().mean()
        print(f"[{rank}] val score {score:.5f}")
        if rank == 0:
            torch.save({"model": model.state_dict(), "epoch": epoch}, "last.pt")
