import torch
from torch.utils.data import DataLoader, DistributedSampler


def validate(model, dataset, criterion, world_size):
    sampler = DistributedSampler(dataset, num_replicas=world_size, shuffle=False)  # expect: FS109
    losses = []
    for x, y in DataLoader(dataset, batch_size=64, sampler=sampler):
        losses.append(criterion(model(x), y))
    loss = torch.stack(losses).mean()
    torch.distributed.all_reduce(loss)
    return loss / world_size
