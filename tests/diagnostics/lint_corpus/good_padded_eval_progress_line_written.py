# Each rank averages its own padded validation share and prints it with tqdm.write: a
# console line, no result file for a merge, and nothing is combined across the ranks.
import numpy as np
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler
from tqdm import tqdm


def train(rank, world_size, model, optimizer, train_set, valid_set, epochs):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    train_sampler = DistributedSampler(train_set, shuffle=True)
    train_loader = DataLoader(train_set, sampler=train_sampler, batch_size=32)
    valid_sampler = DistributedSampler(valid_set, shuffle=False)
    valid_loader = DataLoader(valid_set, sampler=valid_sampler, batch_size=32)
    for epoch in range(epochs):
        train_sampler.set_epoch(epoch)
        for batch in train_loader:
            optimizer.zero_grad()
            model(batch).backward()
            optimizer.step()
        valid_loss = [model(batch).item() for batch in valid_loader]
        tqdm.write(f"[epoch {epoch}] valid loss: {np.mean(valid_loss):.3e}")
