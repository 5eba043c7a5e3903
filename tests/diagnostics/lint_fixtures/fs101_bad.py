import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train(model, dataset, optimizer, epochs):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler)
    for _ in range(epochs):  # FS101: no set_epoch
        for batch in loader:
            optimizer.zero_grad()
            model(batch).sum().backward()
            optimizer.step()


def train_again(model, dataset, epochs):
    passes = 1
    passes += epochs  # no longer one pass
    fixed = DataLoader(dataset, sampler=DistributedSampler(dataset, epoch=0))
    for _ in range(passes):  # FS101: a constant epoch is no rebuild
        for batch in fixed:
            model(batch)
