# Each rank averages its padded validation share, and the losses are all-reduced before
# tqdm.write prints them: the repeats count in the combined mean.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler
from tqdm import tqdm


def train(rank, world_size, model, optimizer, train_set, valid_set, epochs):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    train_sampler = DistributedSampler(train_set, shuffle=True)
    train_loader = DataLoader(train_set, sampler=train_sampler, batch_size=32)
    valid_sampler = DistributedSampler(valid_set, shuffle=False)  # expect: FS109
    valid_loader = DataLoader(valid_set, sampler=valid_sampler, batch_size=32)
    for epoch in range(epochs):
        train_sampler.set_epoch(epoch)
        for batch in train_loader:
            optimizer.zero_grad()
            model(batch).backward()
            optimizer.step()
        valid_loss = torch.stack([model(batch) for batch in valid_loader]).mean()
        dist.all_reduce(valid_loss)
        tqdm.write(f"[epoch {epoch}] valid loss: {valid_loss.item() / world_size:.3e}")
