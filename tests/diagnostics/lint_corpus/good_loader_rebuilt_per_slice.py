# Each pass of the outer loop builds a new loader, with a new sampler, over another slice
# of the data (its bounds read the loop variable): no order is read twice.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, Subset


def slice_loader(dataset, start, end):
    part = Subset(dataset, range(start, end))
    return DataLoader(part, batch_size=8, sampler=DistributedSampler(part))


def forecast(dataset, bounds, predict):
    dist.init_process_group("nccl")
    for j in range(len(bounds)):
        loader = slice_loader(dataset, bounds[j][0], bounds[j][1])
        for batch in loader:
            predict(batch)
