import torch.distributed as dist
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def build_loader(dataset, batch_size):
    sampler = DistributedSampler(dataset, num_replicas=dist.get_world_size(), rank=dist.get_rank())
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, pin_memory=True)


def main(cfg, model, dataset, optimizer):
    dist.init_process_group("nccl")
    loader = build_loader(dataset, cfg.batch_size)
    for epoch in range(cfg.epochs):  # expect: FS101
        for batch in loader:
            optimizer.zero_grad()
            model(batch).mean().backward()
            optimizer.step()
