import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

from fairshard import DistributedSampler as FairSampler


def start_epoch(loader, epoch):
    loader.sampler.set_epoch(epoch)


def train(model, dataset, optimizer, epochs):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            optimizer.zero_grad()
            model(batch).sum().backward()
            optimizer.step()
    other = DataLoader(dataset, sampler=DistributedSampler(dataset))
    for epoch in range(epochs):
        start_epoch(other, epoch)
        for batch in other:
            model(batch)
    auto = DataLoader(dataset, sampler=FairSampler(dataset, auto_epoch=True))
    for _ in range(epochs):
        for batch in auto:
            model(batch)
    once = DataLoader(dataset, sampler=DistributedSampler(dataset))
    for batch in once:  # a single pass needs no set_epoch
        model(batch)
    passes = 1
    for _ in range(passes):  # one pass through a name bound only to 1
        for batch in once:
            model(batch)
    for epoch in range(epochs):
        # rebuilt every epoch with the epoch: a project sampler seeding its order from it
        rebuilt = DataLoader(dataset, sampler=DistributedSampler(dataset, epoch=epoch))
        for batch in rebuilt:
            model(batch)
