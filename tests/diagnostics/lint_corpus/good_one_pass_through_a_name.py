# A visualisation pass: the loop count is a name bound only to 1.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def visualize(model, optimizer, dataset):
    dist.init_process_group("nccl")
    visual_loader = DataLoader(dataset, batch_size=4, sampler=DistributedSampler(dataset))
    iterations = 1
    for _ in range(iterations):
        for data in visual_loader:
            optimizer.zero_grad()
            model(data).backward()
            optimizer.step()
