# Each rank validates its own share and steps its own plateau scheduler on it;
# nothing is combined across ranks (ReduceLROnPlateau and SyncBatchNorm are
# no collectives), so the padded repeats reach no combined number.
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler


def train(rank, world_size, model, train_set, val_set, epochs):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    model = DDP(torch.nn.SyncBatchNorm.convert_sync_batchnorm(model))
    optimizer = torch.optim.Adam(model.parameters())
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min")
    train_sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank)
    val_sampler = DistributedSampler(val_set, num_replicas=world_size, rank=rank)
    train_loader = DataLoader(train_set, batch_size=16, sampler=train_sampler)
    val_loader = DataLoader(val_set, batch_size=16, sampler=val_sampler)
    for epoch in range(epochs):
        train_sampler.set_epoch(epoch)
        for images, masks in train_loader:
            optimizer.zero_grad()
            model(images).sum().backward()
            optimizer.step()
        val_loss = 0.0
        with torch.no_grad():
            for images, masks in val_loader:
                val_loss += model(images).mean().item()
        scheduler.step(val_loss / len(val_loader))
        print(f"rank {rank} validation loss {val_loss / len(val_loader):.4f}")
