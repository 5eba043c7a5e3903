# Named for evaluation, but it trains (a linear probe with a backward pass):
# a neutrally named sampler here is the training one, and it gets set_epoch.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

if __name__ == "__main__":
    dist.init_process_group("nccl")
    dataset = torch.load("features.pt")
    probe = torch.nn.Linear(768, 10)
    optimizer = torch.optim.SGD(probe.parameters(), lr=0.1)
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=64, sampler=sampler)
    for epoch in range(10):
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(probe(x), y).backward()
            optimizer.step()
