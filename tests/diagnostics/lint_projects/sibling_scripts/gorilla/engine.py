# A copy whose validation prints each rank's own mean: nothing combines the ranks.
import torch


def val_one_epoch(model, data_loader):
    total = torch.zeros(2)
    for x, y in data_loader:
        total += torch.tensor([model(x, y).item(), 1.0])
    print("this rank's validation loss", total[0] / total[1])


def train_one_epoch(model, data_loader, val_loader, worker_id):
    for x, y in data_loader:
        model(x, y).backward()
    val_one_epoch(model, val_loader)
