# The same training function, and it all-reduces the validation sums too: the
# padded samples of the last ranks count twice in the logged loss.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train(model, optimizer, train_set, val_set, epochs, rank):
    dist.init_process_group("nccl")
    train_sampler = DistributedSampler(train_set)
    val_sampler = DistributedSampler(val_set, shuffle=False)  # expect: FS109
    train_loader = DataLoader(train_set, batch_size=32, sampler=train_sampler)
    val_loader = DataLoader(val_set, batch_size=32, sampler=val_sampler)
    for epoch in range(epochs):
        train_sampler.set_epoch(epoch)
        epoch_train_loss = torch.zeros(1)
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
            epoch_train_loss += loss.detach()
        dist.all_reduce(epoch_train_loss, op=dist.ReduceOp.SUM)
        total_val_loss, total_samples = 0.0, 0
        with torch.no_grad():
            for x, y in val_loader:
                total_val_loss += torch.nn.functional.mse_loss(model(x), y).item() * len(y)
                total_samples += len(y)
        totals = torch.tensor([total_val_loss, total_samples])
        dist.all_reduce(totals)
        if rank == 0:
            print(epoch, epoch_train_loss.item(), (totals[0] / totals[1]).item())
