import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(model, dataset, epochs):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, sampler=sampler, batch_size=8)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            model(batch)
