import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train(model, dataset, optimizer, epochs, interval, latest_checkpoint):
    dist.init_process_group("nccl")
    contest_sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, sampler=contest_sampler, batch_size=32)
    for epoch in range(epochs):
        contest_sampler.set_epoch(epoch)
        for step, batch in enumerate(loader):
            model(batch).sum().backward()
            optimizer.step()
            if step % interval == 0:
                latest_checkpoint(model)
