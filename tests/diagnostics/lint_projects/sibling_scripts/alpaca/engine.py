# Training validates as it goes; the loader's resume state is kept per worker id.
import torch
import torch.distributed as dist


def val_one_epoch(model, data_loader):
    total = torch.zeros(2)
    for x, y in data_loader:
        total += torch.tensor([model(x, y).item(), 1.0])
    dist.all_reduce(total)  # the padded repeats are averaged in
    return total[0] / total[1]


def train_one_epoch(model, data_loader, val_loader, worker_id):
    dataset_state = {}
    for step, (x, y) in enumerate(data_loader):
        model(x, y).backward()
        dataset_state[worker_id] = {"step": step}  # resume state, not results by sample
    val_one_epoch(model, val_loader)
    return dataset_state
